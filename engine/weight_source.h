// WeightSource: how model code reaches its weights — only through a lease on one unit at a time.
// A lease keeps the unit's tensors valid (in the compute dtype, on the compute device) until it is
// dropped. Model code never keeps a tensor past its lease.
//
// Implementations: ResidencyWeightSource (leases from the residency manager: every tool and the
// daemon) and LocalWeightStore (a checkpoint under a byte budget without a manager: the engine's own
// tests).
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/model_units.h"

namespace mineru::engine {

// The tensors of one unit by HF name, ready for compute.
using UnitTensors = std::map<std::string, at::Tensor>;

class WeightLease {
 public:
  WeightLease() = default;
  WeightLease(std::shared_ptr<const UnitTensors> tensors, std::function<void()> on_release)
      : tensors_(std::move(tensors)), on_release_(std::move(on_release)) {}
  ~WeightLease() { Release(); }
  WeightLease(WeightLease&& o) noexcept
      : tensors_(std::move(o.tensors_)), on_release_(std::exchange(o.on_release_, nullptr)) {}
  WeightLease& operator=(WeightLease&& o) noexcept {
    if (this != &o) {
      Release();
      tensors_ = std::move(o.tensors_);
      on_release_ = std::exchange(o.on_release_, nullptr);
    }
    return *this;
  }
  WeightLease(const WeightLease&) = delete;
  WeightLease& operator=(const WeightLease&) = delete;

  // The tensor called `name`; the unit's own list was validated, so a miss is a programmer bug.
  const at::Tensor& Get(const std::string& name) const;
  bool valid() const { return tensors_ != nullptr; }

 private:
  void Release() {
    tensors_.reset();
    if (on_release_) std::exchange(on_release_, nullptr)();
  }
  std::shared_ptr<const UnitTensors> tensors_;
  std::function<void()> on_release_;
};

class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // The units in execution order (see model_units.h).
  virtual const std::vector<UnitInfo>& units() const = 0;
  virtual Result<WeightLease> Acquire(const std::string& unit_name) = 0;
  // True when the head reuses embed_tokens.
  virtual bool tied() const = 0;
  virtual at::ScalarType compute_dtype() const = 0;
  virtual at::Device device() const = 0;
};

}  // namespace mineru::engine
