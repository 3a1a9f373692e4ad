// ResidencyWeightSource: the model's weights reached through the residency manager. Each checkpoint
// file is registered as a kDisk region and each unit (model_units.h) as a residency unit; Acquire
// leases the unit on kGpu (the manager promotes it under its budget, evicting or streaming others) and
// keeps the residency lease alive exactly as long as the engine's WeightLease. Tensors come in their
// stored dtype over tier memory; when the compute dtype differs they are converted for the duration
// of the lease (the conversion is exact for bf16/f16 -> f32). The pass order is announced once, so the
// manager can prefetch the next unit while the current one computes.
// The unit-kind mapping (engine::UnitKind -> residency::UnitKind) lives here once: the manager's units
// (Create) and the planner's (ResidencyPlanUnit, for `minerud plan` and the memory plan) both come from
// it, so the planner places the units the manager holds.
#pragma once

#include <map>
#include <memory>

#include "engine/checkpoint.h"
#include "engine/weight_source.h"
#include "residency/planner.h"
#include "residency/residency_manager.h"

namespace mineru::engine {

// The residency kind of a unit (residency.md rule 1 ranks by it). A head without lm_head.weight (tied
// embeddings: it holds only the final norm) is a kNorm; an untied head is the kLmHead.
residency::UnitKind ResidencyUnitKind(const UnitInfo& unit);

// The unit as the planner sees it (residency/planner.h): the manager's name, kind, index and footprint.
residency::PlanUnit ResidencyPlanUnit(const UnitInfo& unit);

class ResidencyWeightSource final : public WeightSource {
 public:
  // `manager` must outlive the source. Registers every file and unit with it.
  static Result<std::unique_ptr<ResidencyWeightSource>> Create(std::shared_ptr<const Checkpoint> checkpoint,
                                                               std::vector<UnitInfo> units,
                                                               residency::ResidencyManager* manager,
                                                               at::ScalarType compute_dtype);

  // Bytes `unit` occupies on a residency tier: its stored dtype, laid out as the manager lays it out.
  static uint64_t FootprintBytes(const UnitInfo& unit);

  const std::vector<UnitInfo>& units() const override { return units_; }
  Result<WeightLease> Acquire(const std::string& unit_name) override;
  bool tied() const override { return tied_; }
  at::ScalarType compute_dtype() const override { return compute_dtype_; }
  at::Device device() const override;

  residency::ResidencyManager& manager() const { return *manager_; }

  // Waits for the manager's copies in flight: a prefetch may still be reading the checkpoint's
  // mapping, which goes away with this source.
  ~ResidencyWeightSource() override;

 private:
  ResidencyWeightSource() = default;

  std::shared_ptr<const Checkpoint> checkpoint_;
  std::vector<UnitInfo> units_;
  residency::ResidencyManager* manager_ = nullptr;
  std::map<std::string, residency::UnitId> ids_;
  at::ScalarType compute_dtype_ = at::kFloat;
  bool tied_ = false;
};

}  // namespace mineru::engine
