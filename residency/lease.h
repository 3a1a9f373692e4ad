// Lease: RAII proof that a unit stays on a tier while the engine computes with it.
// Design note: while any lease on (unit, tier) lives, that copy is never evicted or demoted, and the
// tensors stay valid. The tensors are at::Tensor views over the tier's memory in the stored dtype
// (kDisk: the read-only file mapping itself; never write to them). A tensor must not be used after its
// lease ends. Leases are cheap when the unit is already resident: no copy, no allocation, one lock.
#pragma once

#include <ATen/ATen.h>

#include <string_view>
#include <vector>

#include "common/result.h"
#include "residency/tier.h"
#include "residency/unit.h"

namespace mineru::residency {

class ResidencyManager;

class Lease {
 public:
  Lease() = default;
  ~Lease() { Release(); }
  Lease(Lease&& other) noexcept;
  Lease& operator=(Lease&& other) noexcept;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;

  bool valid() const { return manager_ != nullptr; }
  UnitId unit() const { return unit_; }
  Tier tier() const { return tier_; }
  // In the order of the unit's TensorSpecs.
  const std::vector<at::Tensor>& tensors() const { return tensors_; }
  const at::Tensor& tensor(size_t i) const { return tensors_.at(i); }
  // By tensor name; kNotFound when the unit has no such tensor.
  Result<at::Tensor> Tensor(std::string_view name) const;

  // Ends the lease early (the destructor does it otherwise).
  void Release();

 private:
  friend class ResidencyManager;
  Lease(ResidencyManager* manager, UnitId unit, Tier tier, std::vector<at::Tensor> tensors)
      : manager_(manager), unit_(unit), tier_(tier), tensors_(std::move(tensors)) {}

  ResidencyManager* manager_ = nullptr;
  UnitId unit_ = 0;
  Tier tier_ = Tier::kDisk;
  std::vector<at::Tensor> tensors_;
};

// Bytes of kGpu the engine reserves for activations (accounting: the engine keeps its activations within
// them). Released by the destructor.
class WorkspaceReservation {
 public:
  WorkspaceReservation() = default;
  ~WorkspaceReservation() { Release(); }
  WorkspaceReservation(WorkspaceReservation&& other) noexcept;
  WorkspaceReservation& operator=(WorkspaceReservation&& other) noexcept;
  WorkspaceReservation(const WorkspaceReservation&) = delete;
  WorkspaceReservation& operator=(const WorkspaceReservation&) = delete;

  uint64_t size_bytes() const { return size_bytes_; }
  void Release();

 private:
  friend class ResidencyManager;
  WorkspaceReservation(ResidencyManager* manager, uint64_t size_bytes)
      : manager_(manager), size_bytes_(size_bytes) {}
  ResidencyManager* manager_ = nullptr;
  uint64_t size_bytes_ = 0;
};

}  // namespace mineru::residency
