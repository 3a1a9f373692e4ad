#include "engine/residency_weight_source.h"

#include <algorithm>

#include "engine/torch_status.h"

namespace mineru::engine {
namespace {

constexpr int64_t kAcquireWaitMs = 30'000;

Result<residency::DType> ToResidencyDtype(StorageDtype d) {
  switch (d) {
    case StorageDtype::kF32:
      return residency::DType::kF32;
    case StorageDtype::kF16:
      return residency::DType::kF16;
    case StorageDtype::kBF16:
      return residency::DType::kBF16;
    default:
      return InvalidArgument("weights must be F32, F16 or BF16");
  }
}

bool HasTensor(const UnitInfo& u, const std::string& name) {
  for (const UnitTensor& t : u.tensors) {
    if (t.name == name) return true;
  }
  return false;
}

// The manager's index: the layer number for layer units, 0 for the others.
int ResidencyIndex(const UnitInfo& u) { return static_cast<int>(std::max<int64_t>(u.layer, 0)); }

}  // namespace

residency::UnitKind ResidencyUnitKind(const UnitInfo& unit) {
  switch (unit.kind) {
    case UnitKind::kEmbedding:
      return residency::UnitKind::kEmbedding;
    case UnitKind::kDecoderLayer:
      return residency::UnitKind::kDecoderLayer;
    case UnitKind::kHead:
      return HasTensor(unit, "lm_head.weight") ? residency::UnitKind::kLmHead : residency::UnitKind::kNorm;
    case UnitKind::kVisionEmbeddings:
      return residency::UnitKind::kVisionEmbedding;
    case UnitKind::kVisionLayer:
      return residency::UnitKind::kVisionLayer;
    case UnitKind::kProjector:
      return residency::UnitKind::kProjector;
  }
  return residency::UnitKind::kOther;
}

residency::PlanUnit ResidencyPlanUnit(const UnitInfo& unit) {
  residency::PlanUnit p;
  p.name = unit.name;
  p.kind = ResidencyUnitKind(unit);
  p.index = ResidencyIndex(unit);
  p.size_bytes = ResidencyWeightSource::FootprintBytes(unit);
  return p;
}

uint64_t ResidencyWeightSource::FootprintBytes(const UnitInfo& unit) {
  residency::UnitSpec spec;
  for (const UnitTensor& t : unit.tensors) {
    residency::TensorSpec ts;
    ts.size_bytes = t.size_bytes;
    spec.tensors.push_back(std::move(ts));
  }
  return residency::UnitFootprintBytes(spec);
}

Result<std::unique_ptr<ResidencyWeightSource>> ResidencyWeightSource::Create(
    std::shared_ptr<const Checkpoint> checkpoint, std::vector<UnitInfo> units,
    residency::ResidencyManager* manager, at::ScalarType compute_dtype) {
  std::unique_ptr<ResidencyWeightSource> s(new ResidencyWeightSource());
  s->checkpoint_ = std::move(checkpoint);
  s->units_ = std::move(units);
  s->manager_ = manager;
  s->compute_dtype_ = compute_dtype;
  s->tied_ = CheckpointIsTied(*s->checkpoint_);
  std::map<std::string, residency::RegionId> regions;
  for (const auto& f : s->checkpoint_->files()) {
    MINERU_ASSIGN_OR_RETURN(residency::RegionId id, manager->AddRegion(f.region()));
    regions[f.path()] = id;
  }
  std::vector<residency::UnitId> order;
  for (const UnitInfo& u : s->units_) {
    residency::UnitSpec spec;
    spec.name = u.name;
    spec.kind = ResidencyUnitKind(u);
    spec.index = ResidencyIndex(u);
    for (const UnitTensor& t : u.tensors) {
      residency::TensorSpec ts;
      ts.name = t.name;
      MINERU_ASSIGN_OR_RETURN(ts.dtype, ToResidencyDtype(t.dtype));
      ts.shape = t.shape;
      ts.region = regions.at(t.file);
      ts.offset_bytes = t.offset_bytes;
      ts.size_bytes = t.size_bytes;
      spec.tensors.push_back(std::move(ts));
    }
    MINERU_ASSIGN_OR_RETURN(residency::UnitId id, manager->RegisterUnit(std::move(spec)));
    s->ids_[u.name] = id;
    order.push_back(id);
  }
  MINERU_RETURN_IF_ERROR(manager->AnnounceSchedule(order));
  return s;
}

at::Device ResidencyWeightSource::device() const {
  return manager_->device()->TorchDevice(residency::Tier::kGpu);
}

Result<WeightLease> ResidencyWeightSource::Acquire(const std::string& unit_name) {
  auto it = ids_.find(unit_name);
  if (it == ids_.end()) return NotFound("no weight unit \"" + unit_name + "\"");
  // Room may be held for a moment by copies in flight (prefetches): wait for it rather than fail.
  residency::AcquireOptions acquire;
  acquire.deadline = Deadline::InMillis(kAcquireWaitMs);
  MINERU_ASSIGN_OR_RETURN(residency::Lease lease,
                          manager_->Acquire(it->second, residency::Tier::kGpu, acquire));
  auto held = std::make_shared<residency::Lease>(std::move(lease));
  const residency::UnitSpec& spec = manager_->unit(it->second);
  return CatchTorch("leasing " + unit_name, [&]() -> Result<WeightLease> {
    auto tensors = std::make_shared<UnitTensors>();
    for (size_t i = 0; i < spec.tensors.size(); ++i) {
      const at::Tensor& t = held->tensor(i);
      (*tensors)[spec.tensors[i].name] = t.scalar_type() == compute_dtype_ ? t : t.to(compute_dtype_);
    }
    return WeightLease(std::move(tensors), [held]() mutable { held->Release(); });
  });
}

ResidencyWeightSource::~ResidencyWeightSource() {
  if (manager_ != nullptr) manager_->WaitForCopies().IgnoreError();
}

}  // namespace mineru::engine
