// LocalWeightStore: a checkpoint's units under a byte budget, for one process without the residency
// manager (mineru-infer, tests). Units are taken in execution order: while the budget lasts a unit is
// made resident (converted once to the compute dtype on the compute device and kept); the rest stay on
// the disk tier (the mmap'd file) and are converted for the duration of each lease. The arithmetic is
// the same either way, so outputs are bit-identical at every budget; only placement changes.
// Budget accounting counts compute-dtype bytes. Not thread-safe: one model runs one forward at a time.
#pragma once

#include <limits>

#include "engine/checkpoint.h"
#include "engine/weight_source.h"

namespace mineru::engine {

struct LocalWeightStoreOptions {
  at::ScalarType compute_dtype = at::kFloat;
  at::Device device = at::kCPU;
  uint64_t resident_budget_bytes = std::numeric_limits<uint64_t>::max();
};

struct WeightStoreStats {
  uint64_t resident_bytes = 0;
  int64_t resident_units = 0;
  int64_t streamed_loads = 0;  // leases that converted a non-resident unit
  uint64_t peak_transient_bytes = 0;
};

class LocalWeightStore final : public WeightSource {
 public:
  static Result<std::unique_ptr<LocalWeightStore>> Create(std::shared_ptr<const Checkpoint> checkpoint,
                                                          std::vector<UnitInfo> units,
                                                          const LocalWeightStoreOptions& options);

  const std::vector<UnitInfo>& units() const override { return units_; }
  Result<WeightLease> Acquire(const std::string& unit_name) override;
  bool tied() const override { return tied_; }
  at::ScalarType compute_dtype() const override { return options_.compute_dtype; }
  at::Device device() const override { return options_.device; }

  const WeightStoreStats& stats() const { return stats_; }
  // Bytes a unit takes once converted to the compute dtype.
  static uint64_t ComputeBytes(const UnitInfo& unit, at::ScalarType dtype);

 private:
  LocalWeightStore() = default;
  Result<std::shared_ptr<const UnitTensors>> Materialize(const UnitInfo& unit) const;

  std::shared_ptr<const Checkpoint> checkpoint_;
  std::vector<UnitInfo> units_;
  std::map<std::string, size_t> index_;
  std::vector<std::shared_ptr<const UnitTensors>> resident_;  // null = on disk
  LocalWeightStoreOptions options_;
  bool tied_ = false;
  uint64_t transient_bytes_ = 0;
  WeightStoreStats stats_;
};

}  // namespace mineru::engine
