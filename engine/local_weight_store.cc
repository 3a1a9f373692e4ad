#include "engine/local_weight_store.h"

#include "engine/torch_status.h"

namespace mineru::engine {

const at::Tensor& WeightLease::Get(const std::string& name) const {
  auto it = tensors_->find(name);
  if (it == tensors_->end()) {
    static const at::Tensor kEmpty;
    return kEmpty;  // never reached for names from the unit list; an undefined tensor makes torch throw
  }
  return it->second;
}

uint64_t LocalWeightStore::ComputeBytes(const UnitInfo& unit, at::ScalarType dtype) {
  uint64_t n = 0;
  for (const auto& t : unit.tensors) {
    uint64_t e = 1;
    for (int64_t d : t.shape) e *= static_cast<uint64_t>(d);
    n += e * c10::elementSize(dtype);
  }
  return n;
}

Result<std::unique_ptr<LocalWeightStore>> LocalWeightStore::Create(
    std::shared_ptr<const Checkpoint> checkpoint, std::vector<UnitInfo> units,
    const LocalWeightStoreOptions& options) {
  std::unique_ptr<LocalWeightStore> s(new LocalWeightStore());
  s->checkpoint_ = std::move(checkpoint);
  s->units_ = std::move(units);
  s->options_ = options;
  s->tied_ = CheckpointIsTied(*s->checkpoint_);
  s->resident_.resize(s->units_.size());
  uint64_t used = 0;
  for (size_t i = 0; i < s->units_.size(); ++i) {
    s->index_[s->units_[i].name] = i;
    const uint64_t bytes = ComputeBytes(s->units_[i], options.compute_dtype);
    if (options.resident_budget_bytes >= used && bytes <= options.resident_budget_bytes - used) {
      MINERU_ASSIGN_OR_RETURN(s->resident_[i], s->Materialize(s->units_[i]));
      used += bytes;
      s->stats_.resident_units++;
    }
  }
  s->stats_.resident_bytes = used;
  return s;
}

Result<std::shared_ptr<const UnitTensors>> LocalWeightStore::Materialize(const UnitInfo& unit) const {
  return CatchTorch("loading unit " + unit.name, [&]() -> Result<std::shared_ptr<const UnitTensors>> {
    auto out = std::make_shared<UnitTensors>();
    for (const auto& t : unit.tensors) {
      MINERU_ASSIGN_OR_RETURN(at::Tensor view, checkpoint_->View(t.name));
      // Upcasting bf16/f16 to f32 is exact; a copy is always made so no tensor aliases the mapping.
      at::Tensor w = view.to(options_.device, options_.compute_dtype, /*non_blocking=*/false, /*copy=*/true);
      (*out)[t.name] = std::move(w);
    }
    return std::shared_ptr<const UnitTensors>(std::move(out));
  });
}

Result<WeightLease> LocalWeightStore::Acquire(const std::string& unit_name) {
  auto it = index_.find(unit_name);
  if (it == index_.end()) return NotFound("no weight unit \"" + unit_name + "\"");
  const size_t i = it->second;
  if (resident_[i]) return WeightLease(resident_[i], nullptr);
  MINERU_ASSIGN_OR_RETURN(std::shared_ptr<const UnitTensors> t, Materialize(units_[i]));
  const uint64_t bytes = ComputeBytes(units_[i], options_.compute_dtype);
  stats_.streamed_loads++;
  transient_bytes_ += bytes;
  stats_.peak_transient_bytes = std::max(stats_.peak_transient_bytes, transient_bytes_);
  return WeightLease(std::move(t), [this, bytes] { transient_bytes_ -= bytes; });
}

}  // namespace mineru::engine
