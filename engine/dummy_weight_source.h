// DummyWeightSource: random weights generated in memory for a config (no checkpoint, no download), for
// benchmarks and planning at full size. Norm weights are 1, other tensors are normal(0, 0.02) noise,
// generated directly in the compute dtype. Every unit stays resident.
#pragma once

#include "engine/model_config.h"
#include "engine/weight_source.h"

namespace mineru::engine {

class DummyWeightSource final : public WeightSource {
 public:
  static Result<std::unique_ptr<DummyWeightSource>> Create(const ModelConfig& config, at::ScalarType dtype,
                                                           bool tied, uint64_t seed);

  const std::vector<UnitInfo>& units() const override { return units_; }
  Result<WeightLease> Acquire(const std::string& unit_name) override;
  bool tied() const override { return tied_; }
  at::ScalarType compute_dtype() const override { return dtype_; }
  at::Device device() const override { return at::kCPU; }

 private:
  DummyWeightSource() = default;
  std::vector<UnitInfo> units_;
  std::map<std::string, std::shared_ptr<const UnitTensors>> tensors_;
  at::ScalarType dtype_ = at::kBFloat16;
  bool tied_ = false;
};

}  // namespace mineru::engine
