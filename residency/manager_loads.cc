// ResidencyManager, the load machinery: charging a budget, choosing victims, starting copies and
// recording their outcome. See residency_manager.h for the design note and lock order.
// Invariants kept here:
// - A tier's `reserved` includes every buffer that exists or is about to (victims stay charged until
//   DrainGraveyard has freed them), so allocated bytes never pass the budget that admitted them.
// - A copy with leases or readers is never a victim; an arriving copy is never a victim.
// - No device call happens in a "Locked" function.
#include <algorithm>
#include <limits>

#include "residency/manager_state.h"
#include "residency/residency_manager.h"

namespace mineru::residency {

namespace {
int Slot(Tier tier) { return tier == Tier::kGpu ? 0 : 1; }
constexpr UnitId kNoUnit = std::numeric_limits<UnitId>::max();
}  // namespace

std::vector<UnitId> ResidencyManager::VictimsLocked(Tier tier, uint64_t need_bytes, LoadMode mode,
                                                    UnitId for_unit) const {
  const State& s = *state_;
  std::vector<UnitId> out;
  if (mode == LoadMode::kNoEvict || need_bytes == 0) return out;
  const uint64_t for_distance = for_unit == kNoUnit ? 0 : NextUseDistanceLocked(for_unit);
  struct Candidate {
    UnitId id;
    int cls;
    int64_t key;  // ascending = evicted first
  };
  std::vector<Candidate> candidates;
  for (UnitId id = 0; id < s.units.size(); ++id) {
    if (id == for_unit) continue;
    const UnitState& u = s.units[id];
    const UnitCopy& c = u.copies[Slot(tier)];
    if (c.phase != CopyPhase::kReady || c.leases > 0 || c.readers > 0) continue;
    if (s.options.eviction == EvictionPolicy::kLru) {
      candidates.push_back({id, 0, static_cast<int64_t>(c.last_use)});
      continue;
    }
    if (tier == Tier::kPinned || u.positions.empty()) {
      candidates.push_back({id, 0, u.rank});  // outside the schedule: rule-1 order
    } else if (u.streamed) {
      const uint64_t d = NextUseDistanceLocked(id);
      if (mode == LoadMode::kPrefetch && d <= for_distance) continue;
      candidates.push_back({id, 1, -static_cast<int64_t>(d)});  // furthest next use first
    } else {
      if (mode == LoadMode::kPrefetch) continue;  // a prefetch never displaces the resident set
      candidates.push_back({id, 2, u.rank});
    }
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.cls != b.cls ? a.cls < b.cls : (a.key != b.key ? a.key < b.key : a.id < b.id);
  });
  uint64_t freed = 0;
  for (const Candidate& c : candidates) {
    if (freed >= need_bytes) break;
    out.push_back(c.id);
    freed += s.units[c.id].footprint;
  }
  if (freed < need_bytes) out.clear();
  return out;
}

Result<LoadPlan> ResidencyManager::BeginLoadLocked(UnitId id, Tier tier, LoadMode mode) {
  State& s = *state_;
  UnitState& u = s.units[id];
  UnitCopy& copy = u.copies[Slot(tier)];
  Ledger& ledger = s.ledgers[Slot(tier)];
  const uint64_t size = u.footprint;
  const uint64_t held = tier == Tier::kGpu ? ledger.kv + ledger.workspace : ledger.kv;
  if (size + held > ledger.budget) {
    std::string msg = "unit '" + u.spec.name + "' needs " + FormatBytes(size) + " on " +
                      std::string(TierName(tier)) + ", but the " + std::string(TierName(tier)) +
                      " budget is " + FormatBytes(ledger.budget);
    if (held > 0) msg += " with " + FormatBytes(held) + " held by the KV pool and workspace";
    msg += "; a budget of at least " + FormatBytes(size + held) + " is needed";
    return ResourceExhausted(msg);
  }
  const uint64_t pending_free = PendingGraveBytes(tier);
  const uint64_t used = ledger.reserved - pending_free;
  if (used + size > ledger.budget) {
    const uint64_t need = used + size - ledger.budget;
    std::vector<UnitId> victims = VictimsLocked(tier, need, mode, id);
    if (victims.empty()) {
      return Busy("no room for unit '" + u.spec.name + "' (" + FormatBytes(size) + ") on " +
                  std::string(TierName(tier)) + ": " + FormatBytes(used) + " of the " +
                  FormatBytes(ledger.budget) + " budget is leased, arriving or needed sooner");
    }
    for (UnitId v : victims) EvictLocked(v, tier);
  }
  uint8_t* pinned_dst = nullptr;
  if (tier == Tier::kPinned) {
    Result<uint64_t> offset = s.pinned_ranges->Allocate(size);
    while (!offset.ok()) {
      // Fragmented: free the lowest-ranked unleased pinned copy and retry.
      std::vector<UnitId> more = VictimsLocked(tier, 1, mode, id);
      if (more.empty()) return Busy(offset.status().message());
      EvictLocked(more.front(), tier);
      offset = s.pinned_ranges->Allocate(size);
    }
    copy.pinned_offset = *offset;
    pinned_dst = static_cast<uint8_t*>(s.pinned_arena.data()) + *offset;
    ledger.Allocated(size);
  }
  ledger.reserved += size;
  ledger.weights += size;

  LoadPlan plan;
  plan.unit = id;
  plan.tier = tier;
  plan.pinned_dst = pinned_dst;
  plan.pending = std::make_shared<PendingCopy>();
  copy.phase = CopyPhase::kArriving;
  copy.pending = plan.pending;
  copy.prefetched = mode != LoadMode::kDemand;
  copy.source_pinned = copy.source_gpu = false;
  if (tier == Tier::kGpu && u.copies[1].phase == CopyPhase::kReady) {
    plan.contiguous_src = u.copies[1].data;
    plan.queue = CopyQueue::kHostToDevice;
    u.copies[1].readers++;
    copy.source_pinned = true;
  } else if (tier == Tier::kPinned && u.copies[0].phase == CopyPhase::kReady) {
    plan.contiguous_src = u.copies[0].data;
    plan.queue = CopyQueue::kDeviceToHost;
    u.copies[0].readers++;
    copy.source_gpu = true;
  } else {
    plan.queue = tier == Tier::kGpu ? CopyQueue::kHostToDevice : CopyQueue::kHostToHost;
    plan.pageable = true;
  }
  s.counters.bytes_promoted += size;
  return plan;
}

void ResidencyManager::RunLoad(LoadPlan& plan) {
  State& s = *state_;
  const UnitState& u = s.units[plan.unit];  // spec, offsets and sources are immutable after registration
  const uint64_t size = u.footprint;
  // Undoes the load decided in BeginLoadLocked when its memory or its views cannot be made.
  auto fail = [&](const Status& error) {
    {
      std::lock_guard<std::mutex> lock(s.mu);
      UnitState& state = s.units[plan.unit];
      UnitCopy& copy = state.copies[Slot(plan.tier)];
      Ledger& ledger = s.ledgers[Slot(plan.tier)];
      ledger.reserved -= size;
      ledger.weights -= size;
      if (plan.tier == Tier::kPinned) {
        s.pinned_ranges->Free(copy.pinned_offset, size);
        ledger.allocated -= size;
      }
      s.counters.bytes_promoted -= size;
      if (copy.source_pinned) state.copies[1].readers--;
      if (copy.source_gpu) state.copies[0].readers--;
      copy.source_pinned = copy.source_gpu = false;
      copy.phase = CopyPhase::kAbsent;
      copy.pending = nullptr;
    }
    plan.pending->SetSubmitted(error.WithContext("loading unit '" + u.spec.name + "'"), {});
    s.room_cv.notify_all();
  };
  DeviceBuffer buffer;
  uint8_t* dst = plan.pinned_dst;
  if (plan.tier == Tier::kGpu) {
    Result<DeviceBuffer> allocated = device_->Allocate(Tier::kGpu, size);
    if (!allocated.ok()) {
      fail(allocated.status());
      return;
    }
    buffer = std::move(allocated).value();
    dst = static_cast<uint8_t*>(buffer.data());
  }
  std::vector<at::Tensor> tensors;
  tensors.reserve(u.spec.tensors.size());
  for (size_t i = 0; i < u.spec.tensors.size(); ++i) {
    const TensorSpec& t = u.spec.tensors[i];
    Result<at::Tensor> view =
        TensorOver(*device_, plan.tier, dst + u.tensor_offsets[i], ToScalarType(t.dtype), t.shape);
    if (!view.ok()) {
      buffer.Reset();
      fail(view.status());
      return;
    }
    tensors.push_back(std::move(view).value());
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    UnitCopy& copy = s.units[plan.unit].copies[Slot(plan.tier)];
    if (plan.tier == Tier::kGpu) {
      copy.buffer = std::move(buffer);
      s.ledgers[0].Allocated(size);
    }
    copy.data = dst;
    copy.tensors = std::move(tensors);
  }
  std::vector<CopyRequest> requests;
  if (plan.contiguous_src == nullptr) {
    // From the file: ask the kernel to read the unit's ranges ahead (a hint; failures do not matter).
    for (const TensorSpec& t : u.spec.tensors) {
      s.regions[t.region]->AdviseWillNeed(t.offset_bytes, t.size_bytes).IgnoreError();
    }
  }
  if (plan.contiguous_src != nullptr) {
    requests.push_back({plan.queue, dst, plan.contiguous_src, size, false});
  } else {
    for (size_t i = 0; i < u.spec.tensors.size(); ++i) {
      requests.push_back({plan.queue, dst + u.tensor_offsets[i], u.tensor_src[i],
                          u.spec.tensors[i].size_bytes, plan.pageable});
    }
  }
  Status status;
  std::vector<std::unique_ptr<CopyEvent>> events;
  for (const CopyRequest& r : requests) {
    Result<std::unique_ptr<CopyEvent>> e = device_->CopyAsync(r);
    if (!e.ok()) {
      status = e.status().WithContext("copying unit '" + u.spec.name + "'");
      break;
    }
    events.push_back(std::move(e).value());
  }
  plan.pending->SetSubmitted(status, std::move(events));

  // Staging: keep a pinned copy so later promotions read pinned memory instead of the pageable file.
  if (plan.tier == Tier::kGpu && plan.pageable && s.options.stage_through_pinned) {
    std::optional<LoadPlan> staged;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.units[plan.unit].copies[1].phase == CopyPhase::kAbsent) {
        Result<LoadPlan> begun = BeginLoadLocked(plan.unit, Tier::kPinned, LoadMode::kNoEvict);
        if (begun.ok()) staged = std::move(begun).value();
      }
    }
    if (staged) RunLoad(*staged);
  }
}

void ResidencyManager::FinishLoadLocked(UnitId id, Tier tier, const Status& status) {
  State& s = *state_;
  UnitState& u = s.units[id];
  UnitCopy& copy = u.copies[Slot(tier)];
  if (copy.phase != CopyPhase::kArriving) return;
  if (copy.source_pinned) u.copies[1].readers--;
  if (copy.source_gpu) u.copies[0].readers--;
  copy.source_pinned = copy.source_gpu = false;
  copy.pending = nullptr;
  copy.phase = CopyPhase::kReady;
  if (!status.ok()) EvictLocked(id, tier);
}

void ResidencyManager::EvictLocked(UnitId id, Tier tier) {
  State& s = *state_;
  UnitState& u = s.units[id];
  UnitCopy& copy = u.copies[Slot(tier)];
  Ledger& ledger = s.ledgers[Slot(tier)];
  const uint64_t size = u.footprint;
  copy.tensors.clear();
  copy.phase = CopyPhase::kAbsent;
  copy.prefetched = false;
  copy.data = nullptr;
  ledger.weights -= size;
  if (tier == Tier::kGpu) {
    s.graveyard.push_back(Grave{std::move(copy.buffer), size});  // freed by DrainGraveyard, unlocked
  } else {
    s.pinned_ranges->Free(copy.pinned_offset, size);
    ledger.reserved -= size;
    ledger.allocated -= size;
  }
  s.counters.evictions++;
  s.counters.bytes_demoted += size;
}

uint64_t ResidencyManager::PendingGraveBytes(Tier tier) const {
  if (tier != Tier::kGpu) return 0;
  uint64_t total = 0;
  for (const Grave& g : state_->graveyard) total += g.charge;
  return total;
}

void ResidencyManager::DrainGraveyard() {
  State& s = *state_;
  std::vector<Grave> graves;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.graveyard.empty()) return;
    graves.swap(s.graveyard);
  }
  uint64_t total = 0;
  for (Grave& g : graves) {
    total += g.charge;
    g.buffer.Reset();  // the device call, with mu_ released
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.ledgers[0].reserved -= total;
    s.ledgers[0].allocated -= total;
  }
  s.room_cv.notify_all();
}

Status ResidencyManager::ChargeGpuLocked(uint64_t size_bytes, const std::string& what) {
  State& s = *state_;
  Ledger& ledger = s.ledgers[0];
  const uint64_t held = ledger.kv + ledger.workspace;
  if (size_bytes + held > ledger.budget) {
    return ResourceExhausted(what + " needs " + FormatBytes(size_bytes) + ", but the gpu budget is " +
                             FormatBytes(ledger.budget) + " with " + FormatBytes(held) +
                             " held by the KV pool and workspace; a budget of at least " +
                             FormatBytes(size_bytes + held) + " is needed");
  }
  const uint64_t used = ledger.reserved - PendingGraveBytes(Tier::kGpu);
  if (used + size_bytes > ledger.budget) {
    std::vector<UnitId> victims =
        VictimsLocked(Tier::kGpu, used + size_bytes - ledger.budget, LoadMode::kDemand, kNoUnit);
    if (victims.empty()) {
      return ResourceExhausted(what + " needs " + FormatBytes(size_bytes) + " of gpu memory, but " +
                               FormatBytes(used) + " of the " + FormatBytes(ledger.budget) +
                               " budget is leased or arriving");
    }
    for (UnitId v : victims) EvictLocked(v, Tier::kGpu);
  }
  ledger.reserved += size_bytes;
  return Status::Ok();
}

}  // namespace mineru::residency
