// Lease and WorkspaceReservation: RAII handles that give their pin / bytes back to the manager.
#include "residency/lease.h"

#include <string>
#include <utility>

#include "residency/residency_manager.h"

namespace mineru::residency {

Lease::Lease(Lease&& other) noexcept
    : manager_(std::exchange(other.manager_, nullptr)),
      unit_(other.unit_),
      tier_(other.tier_),
      tensors_(std::move(other.tensors_)) {}

Lease& Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    manager_ = std::exchange(other.manager_, nullptr);
    unit_ = other.unit_;
    tier_ = other.tier_;
    tensors_ = std::move(other.tensors_);
  }
  return *this;
}

Result<at::Tensor> Lease::Tensor(std::string_view name) const {
  if (manager_ == nullptr) return FailedPrecondition("the lease has ended");
  const UnitSpec& spec = manager_->unit(unit_);
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    if (spec.tensors[i].name == name) return tensors_[i];
  }
  return NotFound("unit '" + spec.name + "' has no tensor '" + std::string(name) + "'");
}

void Lease::Release() {
  if (manager_ == nullptr) return;
  tensors_.clear();
  std::exchange(manager_, nullptr)->ReleaseLease(unit_, tier_);
}

WorkspaceReservation::WorkspaceReservation(WorkspaceReservation&& other) noexcept
    : manager_(std::exchange(other.manager_, nullptr)), size_bytes_(std::exchange(other.size_bytes_, 0)) {}

WorkspaceReservation& WorkspaceReservation::operator=(WorkspaceReservation&& other) noexcept {
  if (this != &other) {
    Release();
    manager_ = std::exchange(other.manager_, nullptr);
    size_bytes_ = std::exchange(other.size_bytes_, 0);
  }
  return *this;
}

void WorkspaceReservation::Release() {
  if (manager_ == nullptr) return;
  if (size_bytes_ > 0) manager_->ReleaseWorkspace(size_bytes_);
  manager_ = nullptr;
  size_bytes_ = 0;
}

}  // namespace mineru::residency
