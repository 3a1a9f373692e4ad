// ResidencyManager: where every weight, KV page and activation workspace byte lives, under budgets.
//
// Design note.
// - Tiers kGpu / kPinned / kDisk (tier.h). kDisk is the registered mmap'd file: always there, zero
//   copy. kPinned is one arena allocated once (capacity = pinned_arena_bytes); kGpu buffers are
//   allocated per unit from the Device. Each tier has a budget; a charge that would pass it is refused
//   before memory is allocated, so allocated bytes never exceed the budget in force when they were
//   allocated (kGpu counts weights, the KV pool and workspace reservations together).
// - Leases (lease.h) pin a unit on a tier; nothing leased is ever evicted.
// - Schedule: the engine announces the order of units of its next pass (cyclic). From it and the budget
//   the manager derives a placement the same way the planner does (planner.h): a resident set chosen by
//   residency.md rule 1 (DemotionRank) and `prefetch_depth` streaming slots for the rest. After each
//   Acquire it prefetches the next streamed units on the host->device queue while the engine computes.
//   A victim is chosen by furthest next use in the schedule (the order is cyclic, so LRU is wrong); units
//   outside the schedule go first, then by DemotionRank. EvictionPolicy::kLru and prefetch=false give the
//   naive baseline (synchronous copies, LRU) for the benchmark.
// - Budget changes at run time (SetBudget) free unleased memory at once, in rule-1 order; leased bytes
//   are freed when their lease ends. Tick() demotes weights to `idle_tier` after `keep_alive_ms` without
//   activity; the next Acquire or announced schedule promotes them back.
// - Weights are read-only: demotion only drops a copy (the file stays authoritative), never writes back.
//
// Threading and lock order: one mutex mu_ guards all bookkeeping. Device calls (allocate, free, copy,
// wait) and madvise run with mu_ released; a copy's PendingCopy has its own leaf mutex. Lock order:
// ResidencyManager::mu_ -> PendingCopy::mu_ (never the reverse). The KV pool's bookkeeping has its own
// mutex, taken before mu_ when both are needed (KvPagePool::mu_ -> ResidencyManager::mu_).
// Limits: one engine thread is expected to Acquire; any thread may call SetBudget, Tick, GetStats.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/mapped_region.h"
#include "common/result.h"
#include "residency/device.h"
#include "residency/kv_page_pool.h"
#include "residency/lease.h"
#include "residency/stats.h"
#include "residency/tier.h"
#include "residency/unit.h"

namespace mineru::residency {

enum class EvictionPolicy : uint8_t {
  kFurthestNextUse,  // the default: knows the announced schedule
  kLru,              // the naive baseline, for comparison only
};

struct ResidencyOptions {
  uint64_t gpu_budget_bytes = 0;
  uint64_t pinned_budget_bytes = 0;
  // The pinned arena allocated once at Create; 0 = pinned_budget_bytes. SetBudget(kPinned) may not
  // raise the budget above it.
  uint64_t pinned_arena_bytes = 0;
  // Streaming slots: streamed units in flight or in use at once (>= 1).
  int prefetch_depth = 2;
  bool prefetch = true;
  EvictionPolicy eviction = EvictionPolicy::kFurthestNextUse;
  // Promotions to kGpu read from the unit's pinned copy when it has one; with this set the manager also
  // keeps a pinned copy of every unit it promotes when the pinned budget allows (so streaming reads pinned
  // memory, not the pageable file).
  bool stage_through_pinned = true;
  // Idle demotion: after this long without an Acquire and with no lease held, Tick() drops weights
  // from kGpu to idle_tier (kPinned or kDisk). 0 = never.
  int64_t keep_alive_ms = 5 * 60 * 1000;
  Tier idle_tier = Tier::kPinned;
};

struct AcquireOptions {
  // When the tier is full of leased units, wait for a lease to end until this deadline; by default
  // fail at once with kResourceExhausted.
  Deadline deadline = Deadline::InMillis(0);
};

struct LoadPlan;
class PendingCopy;

class ResidencyManager {
 public:
  // `device` must outlive the manager.
  static Result<std::unique_ptr<ResidencyManager>> Create(Device* device, const ResidencyOptions& options);
  ~ResidencyManager();
  ResidencyManager(const ResidencyManager&) = delete;
  ResidencyManager& operator=(const ResidencyManager&) = delete;

  // --- Registration (before the first Acquire) ---
  // Registers an mmap'd safetensors file; `region` must outlive the manager and must not move.
  Result<RegionId> AddRegion(const MappedRegion& region);
  // Validates the unit against its region and registers it; names are unique.
  Result<UnitId> RegisterUnit(UnitSpec spec);
  Result<UnitId> FindUnit(std::string_view name) const;
  const UnitSpec& unit(UnitId id) const;
  size_t num_units() const;

  // --- Leases ---
  // Makes `unit` resident on `tier` (promoting it, evicting unleased units if needed) and pins it there.
  // Errors: kInvalidArgument (unknown unit); kResourceExhausted naming the budget needed when the unit
  // can never fit, or (after the deadline) when leased bytes leave no room; device errors.
  Result<Lease> Acquire(UnitId unit, Tier tier, const AcquireOptions& options = {});
  // Starts promoting `unit` to `tier` in the background if it fits without evicting anything needed
  // sooner. OK when already resident or arriving.
  Status Prefetch(UnitId unit, Tier tier);
  // The order of units of the next pass (repeats cyclically until the next announcement). Recomputes
  // the placement and starts prefetching its first streamed units.
  Status AnnounceSchedule(std::vector<UnitId> order);

  // --- Memory outside the weights ---
  // Charges `size_bytes` of kGpu for activations, evicting unleased weights if needed.
  Result<WorkspaceReservation> ReserveWorkspace(uint64_t size_bytes);
  // Creates the KV page pool in a kGpu region reserved now (one per manager).
  Result<KvPagePool*> CreateKvPool(const KvPoolOptions& options);
  KvPagePool* kv_pool() const;

  // --- Run-time control ---
  // New budget for kGpu or kPinned. Shrinking frees unleased memory at once (rule-1 order); leased bytes
  // are freed as their leases end. kInvalidArgument for kDisk, or a kPinned budget above the arena.
  Status SetBudget(Tier tier, uint64_t size_bytes);
  uint64_t budget(Tier tier) const;
  // Idle demotion: call periodically (the daemon's timer). Returns true when it demoted.
  bool Tick(MonoTime now = MonoNow());
  // Demotes every unleased weight from kGpu to `tier` (kPinned or kDisk) now.
  Status DemoteAll(Tier tier);
  // Waits until every copy in flight has finished (tests, shutdown).
  Status WaitForCopies();

  // The fastest tier holding a complete copy of `unit` (kDisk at worst).
  Tier ResidentTier(UnitId unit) const;
  // Whether `unit` is part of the resident set of the current placement (false without a schedule).
  bool InResidentSet(UnitId unit) const;
  Stats GetStats() const;
  Device* device() const { return device_; }

 private:
  friend class Lease;
  friend class WorkspaceReservation;
  friend class KvPagePool;
  struct State;
  // Which unleased copies a load may evict.
  enum class LoadMode : uint8_t {
    kDemand,    // anything unleased (an Acquire must succeed)
    kPrefetch,  // only units needed later than the one loaded, never the resident set
    kNoEvict,   // only free budget
  };

  ResidencyManager(Device* device, const ResidencyOptions& options);
  void ReleaseLease(UnitId unit, Tier tier);
  void ReleaseWorkspace(uint64_t size_bytes);
  Result<Lease> FinishAcquire(UnitId unit, Tier tier, std::shared_ptr<PendingCopy> pending);

  // manager_loads.cc. "Locked" functions run with mu_ held; the others take it themselves.
  Result<LoadPlan> BeginLoadLocked(UnitId unit, Tier tier, LoadMode mode);
  void RunLoad(LoadPlan& plan);
  void FinishLoadLocked(UnitId unit, Tier tier, const Status& status);
  void EvictLocked(UnitId unit, Tier tier);
  uint64_t PendingGraveBytes(Tier tier) const;
  void DrainGraveyard();
  Status ChargeGpuLocked(uint64_t size_bytes, const std::string& what);
  // manager_schedule.cc.
  void AdvanceCursorLocked(UnitId unit);
  uint64_t NextUseDistanceLocked(UnitId unit) const;
  void RecomputePlacementLocked();
  void IssuePrefetches();
  std::optional<LoadPlan> NextPrefetchLocked();
  // Evicts streamed kGpu copies (furthest next use first, only those needed later than min_distance)
  // until at most `keep` remain; false when that is not possible.
  bool TrimStreamedLocked(uint32_t keep, uint64_t min_distance);
  std::vector<UnitId> VictimsLocked(Tier tier, uint64_t need_bytes, LoadMode mode, UnitId for_unit) const;

  // Internal to the KV pool: pinned arena ranges for swapped-out sequences (charged as kPinned KV bytes;
  // unleased pinned weight copies are dropped to make room, rule 1).
  Result<uint64_t> AllocatePinnedRange(uint64_t size_bytes);  // offset into the pinned arena
  void FreePinnedRange(uint64_t offset, uint64_t size_bytes);
  uint8_t* pinned_base() const;

  Device* device_;
  std::unique_ptr<State> state_;
};

}  // namespace mineru::residency
