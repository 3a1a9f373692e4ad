// ResidencyManager: leases, loads, prefetch and eviction. See residency_manager.h for the design note
// and the lock order. Pattern used throughout: decide under mu_ (charge the budget, pick victims, mark
// copies arriving), then release mu_ to free victims' buffers (DrainGraveyard), allocate and submit
// copies (RunLoad), and wait on events; re-take mu_ only to record the outcome.
#include "residency/residency_manager.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "residency/manager_state.h"

namespace mineru::residency {

namespace {

int Slot(Tier tier) { return tier == Tier::kGpu ? 0 : 1; }

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Creation and registration.

ResidencyManager::ResidencyManager(Device* device, const ResidencyOptions& options)
    : device_(device), state_(std::make_unique<State>()) {
  state_->options = options;
  state_->ledgers[0].budget = options.gpu_budget_bytes;
  state_->ledgers[1].budget = options.pinned_budget_bytes;
}

ResidencyManager::~ResidencyManager() {
  WaitForCopies().IgnoreError();
  state_->kv_pool.reset();
}

Result<std::unique_ptr<ResidencyManager>> ResidencyManager::Create(Device* device,
                                                                   const ResidencyOptions& options) {
  if (device == nullptr) return InvalidArgument("residency manager needs a device");
  if (options.prefetch_depth < 1) return InvalidArgument("prefetch_depth must be at least 1");
  if (options.idle_tier == Tier::kGpu) return InvalidArgument("idle_tier must be pinned or disk");
  uint64_t arena = options.pinned_arena_bytes == 0 ? options.pinned_budget_bytes : options.pinned_arena_bytes;
  if (options.pinned_budget_bytes > arena) {
    return InvalidArgument("the pinned budget (" + FormatBytes(options.pinned_budget_bytes) +
                           ") is larger than the pinned arena (" + FormatBytes(arena) + ")");
  }
  arena = arena / kBufferAlignBytes * kBufferAlignBytes;
  std::unique_ptr<ResidencyManager> manager(new ResidencyManager(device, options));
  if (arena > 0) {
    MINERU_ASSIGN_OR_RETURN(manager->state_->pinned_arena, device->Allocate(Tier::kPinned, arena));
  }
  manager->state_->pinned_ranges = std::make_unique<RangeAllocator>(arena, kBufferAlignBytes);
  return manager;
}

Result<RegionId> ResidencyManager::AddRegion(const MappedRegion& region) {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (region.empty()) return InvalidArgument("an empty file region");
  state_->regions.push_back(&region);
  state_->region_sizes.push_back(region.size());
  state_->disk_bytes += region.size();
  return static_cast<RegionId>(state_->regions.size() - 1);
}

Result<UnitId> ResidencyManager::RegisterUnit(UnitSpec spec) {
  std::lock_guard<std::mutex> lock(state_->mu);
  State& s = *state_;
  MINERU_RETURN_IF_ERROR(ValidateUnit(spec, s.region_sizes));
  if (s.by_name.count(spec.name)) return InvalidArgument("unit '" + spec.name + "' is registered twice");
  UnitState u;
  u.footprint = UnitFootprintBytes(spec);
  u.tensor_offsets = UnitTensorOffsets(spec);
  for (const TensorSpec& t : spec.tensors) {
    const uint8_t* src = s.regions[t.region]->data() + t.offset_bytes;
    u.tensor_src.push_back(src);
    // kDisk views: the file itself, read-only by contract.
    MINERU_ASSIGN_OR_RETURN(at::Tensor view, TensorOver(*device_, Tier::kDisk, const_cast<uint8_t*>(src),
                                                        ToScalarType(t.dtype), t.shape));
    u.disk_tensors.push_back(std::move(view));
  }
  if (spec.kind == UnitKind::kDecoderLayer)
    s.num_decoder_layers = std::max(s.num_decoder_layers, spec.index + 1);
  u.spec = std::move(spec);
  const UnitId id = static_cast<UnitId>(s.units.size());
  s.by_name.emplace(u.spec.name, id);
  s.units.push_back(std::move(u));
  for (UnitState& each : s.units) {
    each.rank = DemotionRank(each.spec.kind, each.spec.index, s.num_decoder_layers);
  }
  return id;
}

Result<UnitId> ResidencyManager::FindUnit(std::string_view name) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->by_name.find(std::string(name));
  if (it == state_->by_name.end()) return NotFound("no unit named '" + std::string(name) + "'");
  return it->second;
}

const UnitSpec& ResidencyManager::unit(UnitId id) const { return state_->units.at(id).spec; }
size_t ResidencyManager::num_units() const { return state_->units.size(); }

// ---------------------------------------------------------------------------------------------------
// Leases.

Result<Lease> ResidencyManager::Acquire(UnitId id, Tier tier, const AcquireOptions& options) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  if (id >= s.units.size()) return InvalidArgument("unknown unit id " + std::to_string(id));
  s.counters.acquires++;
  s.last_activity = MonoNow();
  s.idle_demoted = false;
  UnitState& u = s.units[id];
  if (tier == Tier::kDisk) {
    s.leases_held++;
    return Lease(this, id, tier, u.disk_tensors);
  }
  if (tier == Tier::kGpu) AdvanceCursorLocked(id);
  UnitCopy& copy = u.copies[Slot(tier)];
  bool waited_for_copies = false;
  for (;;) {
    if (copy.phase == CopyPhase::kReady) {
      copy.leases++;
      s.leases_held++;
      copy.last_use = ++s.clock;
      copy.prefetched = false;
      s.counters.prefetch_hits++;
      std::vector<at::Tensor> tensors = copy.tensors;
      lock.unlock();
      IssuePrefetches();
      return Lease(this, id, tier, std::move(tensors));
    }
    if (copy.phase == CopyPhase::kArriving) {
      copy.leases++;
      s.leases_held++;
      copy.last_use = ++s.clock;
      copy.prefetched = false;
      s.counters.prefetch_stalls++;
      std::shared_ptr<PendingCopy> pending = copy.pending;
      lock.unlock();
      IssuePrefetches();
      return FinishAcquire(id, tier, pending);
    }
    Result<LoadPlan> plan = BeginLoadLocked(id, tier, LoadMode::kDemand);
    if (!plan.ok() && plan.status().code() == StatusCode::kBusy && !waited_for_copies) {
      // Copies in flight (prefetches, staging) hold room and readers until they land; let them land.
      waited_for_copies = true;
      lock.unlock();
      MINERU_RETURN_IF_ERROR(WaitForCopies());
      lock.lock();
      continue;
    }
    if (!plan.ok()) {
      if (plan.status().code() == StatusCode::kBusy && !options.deadline.Expired()) {
        if (options.deadline.never()) {
          s.room_cv.wait(lock);
        } else {
          s.room_cv.wait_until(lock, options.deadline.at());
        }
        continue;
      }
      if (plan.status().code() == StatusCode::kBusy) {
        return ResourceExhausted(plan.status().message());
      }
      return plan.status();
    }
    copy.leases++;
    s.leases_held++;
    copy.last_use = ++s.clock;
    s.counters.prefetch_stalls++;
    std::shared_ptr<PendingCopy> pending = plan->pending;
    lock.unlock();
    DrainGraveyard();
    RunLoad(*plan);
    IssuePrefetches();
    return FinishAcquire(id, tier, pending);
  }
}

Result<Lease> ResidencyManager::FinishAcquire(UnitId id, Tier tier, std::shared_ptr<PendingCopy> pending) {
  Status status = pending->Wait();
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  UnitCopy& copy = s.units[id].copies[Slot(tier)];
  if (copy.pending == pending) FinishLoadLocked(id, tier, status);
  if (!status.ok() || copy.phase != CopyPhase::kReady) {
    copy.leases--;
    s.leases_held--;
    lock.unlock();
    DrainGraveyard();
    return status.ok() ? Internal("unit copy vanished while arriving") : status;
  }
  return Lease(this, id, tier, copy.tensors);
}

void ResidencyManager::ReleaseLease(UnitId id, Tier tier) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.leases_held--;
    s.last_activity = MonoNow();
    if (tier != Tier::kDisk) {
      UnitCopy& copy = s.units[id].copies[Slot(tier)];
      copy.leases--;
      Ledger& ledger = s.ledgers[Slot(tier)];
      // Over budget after a shrink: the lease was what kept these bytes.
      if (copy.leases == 0 && copy.readers == 0 && copy.phase == CopyPhase::kReady &&
          ledger.reserved - PendingGraveBytes(tier) > ledger.budget) {
        EvictLocked(id, tier);
      }
      // Streamed units beyond the slots (left by on-demand loads) give way as their leases end.
      if (tier == Tier::kGpu && s.units[id].streamed) {
        TrimStreamedLocked(static_cast<uint32_t>(s.options.prefetch_depth), 0);
      }
    }
  }
  s.room_cv.notify_all();
  DrainGraveyard();
}

Status ResidencyManager::Prefetch(UnitId id, Tier tier) {
  State& s = *state_;
  std::optional<LoadPlan> plan;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (id >= s.units.size()) return InvalidArgument("unknown unit id " + std::to_string(id));
    if (tier == Tier::kDisk) return Status::Ok();
    if (s.units[id].copies[Slot(tier)].phase != CopyPhase::kAbsent) return Status::Ok();
    Result<LoadPlan> begun = BeginLoadLocked(id, tier, LoadMode::kNoEvict);
    if (!begun.ok()) return begun.status().code() == StatusCode::kBusy ? Status::Ok() : begun.status();
    plan = std::move(begun).value();
    s.counters.prefetches_issued++;
  }
  DrainGraveyard();
  RunLoad(*plan);
  return Status::Ok();
}

Status ResidencyManager::AnnounceSchedule(std::vector<UnitId> order) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    State& s = *state_;
    for (UnitId id : order) {
      if (id >= s.units.size())
        return InvalidArgument("schedule names unknown unit id " + std::to_string(id));
    }
    s.schedule = std::move(order);
    s.cursor = s.schedule.empty() ? 0 : s.schedule.size() - 1;
    s.cursor_valid = false;
    RecomputePlacementLocked();
    s.last_activity = MonoNow();
    s.idle_demoted = false;
  }
  IssuePrefetches();
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------------
// Workspace, budgets, idle demotion.

Result<WorkspaceReservation> ResidencyManager::ReserveWorkspace(uint64_t size_bytes) {
  State& s = *state_;
  if (size_bytes == 0) return WorkspaceReservation(this, 0);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    MINERU_RETURN_IF_ERROR(ChargeGpuLocked(size_bytes, "activation workspace"));
    s.ledgers[0].workspace += size_bytes;
  }
  DrainGraveyard();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.ledgers[0].Allocated(size_bytes);
    RecomputePlacementLocked();
  }
  return WorkspaceReservation(this, size_bytes);
}

void ResidencyManager::ReleaseWorkspace(uint64_t size_bytes) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    Ledger& l = state_->ledgers[0];
    l.reserved -= size_bytes;
    l.allocated -= size_bytes;
    l.workspace -= size_bytes;
    RecomputePlacementLocked();
  }
  state_->room_cv.notify_all();
}

Status ResidencyManager::SetBudget(Tier tier, uint64_t size_bytes) {
  State& s = *state_;
  if (tier == Tier::kDisk) return InvalidArgument("the disk tier has no budget (it is the file)");
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (tier == Tier::kPinned && size_bytes > s.pinned_ranges->capacity_bytes()) {
      return InvalidArgument("the pinned budget cannot exceed the pinned arena (" +
                             FormatBytes(s.pinned_ranges->capacity_bytes()) + ", allocated once at start)");
    }
    Ledger& ledger = s.ledgers[Slot(tier)];
    ledger.budget = size_bytes;
    if (tier == Tier::kGpu) RecomputePlacementLocked();
    // Free unleased copies in rule-1 order (lowest DemotionRank first) until under the new budget.
    uint64_t freed = PendingGraveBytes(tier);
    while (ledger.reserved - freed > ledger.budget) {
      std::optional<UnitId> victim;
      for (UnitId id = 0; id < s.units.size(); ++id) {
        const UnitCopy& c = s.units[id].copies[Slot(tier)];
        if (c.phase != CopyPhase::kReady || c.leases > 0 || c.readers > 0) continue;
        if (!victim || s.units[id].rank < s.units[*victim].rank) victim = id;
      }
      if (!victim) break;  // the rest is leased: freed as the leases end
      freed += s.units[*victim].footprint;
      EvictLocked(*victim, tier);
    }
  }
  DrainGraveyard();
  s.room_cv.notify_all();
  IssuePrefetches();
  return Status::Ok();
}

uint64_t ResidencyManager::budget(Tier tier) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (tier == Tier::kDisk) return state_->disk_bytes;
  return state_->ledgers[Slot(tier)].budget;
}

bool ResidencyManager::Tick(MonoTime now) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.options.keep_alive_ms <= 0 || s.leases_held > 0 || s.idle_demoted) return false;
    if (now - s.last_activity < std::chrono::milliseconds(s.options.keep_alive_ms)) return false;
    bool any = false;
    for (const UnitState& u : s.units) any = any || u.copies[0].phase != CopyPhase::kAbsent;
    if (!any) return false;
  }
  if (!DemoteAll(s.options.idle_tier).ok()) return false;
  std::lock_guard<std::mutex> lock(s.mu);
  s.idle_demoted = true;
  s.counters.idle_demotions++;
  return true;
}

Status ResidencyManager::DemoteAll(Tier tier) {
  State& s = *state_;
  if (tier == Tier::kGpu) return InvalidArgument("demotion goes to pinned or disk");
  MINERU_RETURN_IF_ERROR(WaitForCopies());
  if (tier == Tier::kPinned) {
    // Keep a pinned copy of every unit leaving kGpu, copied back from kGpu, where the pinned budget allows.
    std::vector<std::pair<UnitId, std::shared_ptr<PendingCopy>>> pending;
    std::vector<LoadPlan> plans;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      for (UnitId id = 0; id < s.units.size(); ++id) {
        UnitState& u = s.units[id];
        if (u.copies[0].phase != CopyPhase::kReady || u.copies[0].leases > 0) continue;
        if (u.copies[1].phase != CopyPhase::kAbsent) continue;
        Result<LoadPlan> plan = BeginLoadLocked(id, Tier::kPinned, LoadMode::kNoEvict);
        if (!plan.ok()) continue;  // no room: this unit drops to disk
        pending.emplace_back(id, plan->pending);
        plans.push_back(std::move(*plan));
      }
    }
    for (LoadPlan& plan : plans) RunLoad(plan);
    for (auto& [id, p] : pending) {
      Status st = p->Wait();
      std::lock_guard<std::mutex> lock(s.mu);
      if (s.units[id].copies[1].pending == p) FinishLoadLocked(id, Tier::kPinned, st);
    }
  }
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (UnitId id = 0; id < s.units.size(); ++id) {
      for (Tier t : {Tier::kGpu, Tier::kPinned}) {
        if (t == Tier::kPinned && tier == Tier::kPinned) continue;
        const UnitCopy& c = s.units[id].copies[Slot(t)];
        if (c.phase == CopyPhase::kReady && c.leases == 0 && c.readers == 0) EvictLocked(id, t);
      }
    }
  }
  DrainGraveyard();
  s.room_cv.notify_all();
  return Status::Ok();
}

Status ResidencyManager::WaitForCopies() {
  State& s = *state_;
  std::vector<std::tuple<UnitId, Tier, std::shared_ptr<PendingCopy>>> arriving;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (UnitId id = 0; id < s.units.size(); ++id) {
      for (Tier t : {Tier::kGpu, Tier::kPinned}) {
        const UnitCopy& c = s.units[id].copies[Slot(t)];
        if (c.phase == CopyPhase::kArriving) arriving.emplace_back(id, t, c.pending);
      }
    }
  }
  Status first;
  for (auto& [id, t, p] : arriving) {
    Status st = p->Wait();
    if (first.ok() && !st.ok()) first = st;
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.units[id].copies[Slot(t)].pending == p) FinishLoadLocked(id, t, st);
  }
  DrainGraveyard();
  return first;
}

// ---------------------------------------------------------------------------------------------------
// Queries.

Tier ResidencyManager::ResidentTier(UnitId id) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (id >= state_->units.size()) return Tier::kDisk;
  const UnitState& u = state_->units[id];
  if (u.copies[0].phase == CopyPhase::kReady) return Tier::kGpu;
  if (u.copies[1].phase == CopyPhase::kReady) return Tier::kPinned;
  return Tier::kDisk;
}

bool ResidencyManager::InResidentSet(UnitId id) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return id < state_->units.size() && state_->units[id].resident_set;
}

KvPagePool* ResidencyManager::kv_pool() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->kv_pool.get();
}

Stats ResidencyManager::GetStats() const {
  KvPagePool* pool = kv_pool();
  KvStats kv = pool ? pool->GetStats() : KvStats{};  // before mu_: pool mutex comes first
  std::lock_guard<std::mutex> lock(state_->mu);
  const State& s = *state_;
  Stats out = s.counters;
  out.units = s.units.size();
  for (Tier t : {Tier::kGpu, Tier::kPinned}) {
    const Ledger& l = s.ledgers[Slot(t)];
    TierStats& ts = out.tiers[TierIndex(t)];
    ts.budget_bytes = l.budget;
    ts.reserved_bytes = l.reserved;
    ts.allocated_bytes = l.allocated;
    ts.peak_bytes = l.peak;
    ts.weight_bytes = l.weights;
    ts.kv_bytes = l.kv;
    ts.workspace_bytes = l.workspace;
    for (const UnitState& u : s.units) ts.units_resident += u.copies[Slot(t)].phase == CopyPhase::kReady;
  }
  TierStats& disk = out.tiers[TierIndex(Tier::kDisk)];
  disk.budget_bytes = disk.allocated_bytes = disk.reserved_bytes = disk.peak_bytes = s.disk_bytes;
  disk.units_resident = static_cast<uint32_t>(s.units.size());
  for (const UnitState& u : s.units) disk.weight_bytes += u.footprint;
  out.kv = kv;
  return out;
}

}  // namespace mineru::residency

namespace mineru::residency {

// ---------------------------------------------------------------------------------------------------
// The KV pool's memory.

Result<KvPagePool*> ResidencyManager::CreateKvPool(const KvPoolOptions& options) {
  State& s = *state_;
  if (options.page_size_tokens == 0) return InvalidArgument("KV page size must be at least one token");
  const uint64_t elem = DTypeSizeBytes(options.dtype);
  if (options.bytes_per_token == 0 || options.bytes_per_token % elem != 0) {
    return InvalidArgument("KV bytes per token (" + std::to_string(options.bytes_per_token) +
                           ") must be a positive multiple of the " + std::string(DTypeName(options.dtype)) +
                           " size");
  }
  const uint64_t page_bytes = options.page_size_tokens * options.bytes_per_token;
  uint64_t num_pages = options.num_pages;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.kv_pool) return Status(StatusCode::kAlreadyExists, "the KV pool exists already");
    if (num_pages == 0) {
      if (options.budget_fraction <= 0 || options.budget_fraction > 1) {
        return InvalidArgument("KV budget_fraction must be in (0, 1]");
      }
      num_pages = static_cast<uint64_t>(options.budget_fraction * static_cast<double>(s.ledgers[0].budget)) /
                  page_bytes;
    }
  }
  if (num_pages < 2) return ResourceExhausted("the KV pool needs at least 2 pages (one is the null page)");
  if (num_pages > (1ULL << 31)) return InvalidArgument("too many KV pages");
  const uint64_t size =
      (num_pages * page_bytes + kBufferAlignBytes - 1) / kBufferAlignBytes * kBufferAlignBytes;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    MINERU_RETURN_IF_ERROR(ChargeGpuLocked(size, "the KV pool (" + std::to_string(num_pages) + " pages)"));
    s.ledgers[0].kv += size;
  }
  DrainGraveyard();
  Result<DeviceBuffer> buffer = device_->Allocate(Tier::kGpu, size);
  Result<at::Tensor> storage = Internal("no KV pool memory");
  if (buffer.ok()) {
    storage = TensorOver(*device_, Tier::kGpu, buffer->data(), ToScalarType(options.dtype),
                         {static_cast<int64_t>(num_pages), static_cast<int64_t>(options.page_size_tokens),
                          static_cast<int64_t>(options.bytes_per_token / elem)});
  }
  if (!buffer.ok() || !storage.ok()) {
    const Status error = buffer.ok() ? storage.status() : buffer.status();
    buffer = Internal("released");  // frees the buffer, if any, before the books are corrected
    std::lock_guard<std::mutex> lock(s.mu);
    s.ledgers[0].reserved -= size;
    s.ledgers[0].kv -= size;
    return error.WithContext("allocating the KV pool");
  }
  std::lock_guard<std::mutex> lock(s.mu);
  s.ledgers[0].Allocated(size);
  RecomputePlacementLocked();
  s.kv_pool.reset(
      new KvPagePool(this, options, num_pages, std::move(buffer).value(), std::move(storage).value()));
  return s.kv_pool.get();
}

Result<uint64_t> ResidencyManager::AllocatePinnedRange(uint64_t size_bytes) {
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.mu);
  Ledger& ledger = s.ledgers[1];
  const uint64_t size = s.pinned_ranges->Rounded(size_bytes);
  if (size + ledger.kv > ledger.budget) {
    return ResourceExhausted("swapping out KV needs " + FormatBytes(size) +
                             " of pinned memory; the pinned budget is " + FormatBytes(ledger.budget) +
                             " with " + FormatBytes(ledger.kv) + " already swapped");
  }
  if (ledger.reserved + size > ledger.budget) {
    std::vector<UnitId> victims = VictimsLocked(Tier::kPinned, ledger.reserved + size - ledger.budget,
                                                LoadMode::kDemand, std::numeric_limits<UnitId>::max());
    if (victims.empty()) return ResourceExhausted("no pinned memory free for swapped-out KV");
    for (UnitId v : victims) EvictLocked(v, Tier::kPinned);
  }
  Result<uint64_t> offset = s.pinned_ranges->Allocate(size);
  while (!offset.ok()) {
    std::vector<UnitId> more =
        VictimsLocked(Tier::kPinned, 1, LoadMode::kDemand, std::numeric_limits<UnitId>::max());
    if (more.empty()) return offset.status();
    EvictLocked(more.front(), Tier::kPinned);
    offset = s.pinned_ranges->Allocate(size);
  }
  ledger.reserved += size;
  ledger.kv += size;
  ledger.Allocated(size);
  return *offset;
}

void ResidencyManager::FreePinnedRange(uint64_t offset, uint64_t size_bytes) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    const uint64_t size = s.pinned_ranges->Rounded(size_bytes);
    s.pinned_ranges->Free(offset, size);
    s.ledgers[1].reserved -= size;
    s.ledgers[1].allocated -= size;
    s.ledgers[1].kv -= size;
  }
  s.room_cv.notify_all();
}

uint8_t* ResidencyManager::pinned_base() const { return static_cast<uint8_t*>(state_->pinned_arena.data()); }

}  // namespace mineru::residency
