// ResidencyManager, the schedule side: the cursor in the announced (cyclic) order, next-use distances,
// the placement derived from the budget (the planner's ChooseResidentSet, so prediction and behaviour
// agree) and prefetching of the next units while the engine computes.
// Design note: streamed units occupy at most `prefetch_depth` kGpu slots at once (in use or arriving);
// a new prefetch may replace a streamed unit only when that unit's next use is further away than the
// prefetched one's (Belady's rule), and never displaces the resident set. Completed prefetches that were
// never acquired are reaped (their events are queried with mu_ released).
#include <algorithm>
#include <limits>

#include "residency/manager_state.h"
#include "residency/planner.h"
#include "residency/residency_manager.h"

namespace mineru::residency {

void ResidencyManager::AdvanceCursorLocked(UnitId id) {
  State& s = *state_;
  const std::vector<size_t>& pos = s.units[id].positions;
  if (s.schedule.empty() || pos.empty()) return;
  auto it = std::upper_bound(pos.begin(), pos.end(), s.cursor);
  s.cursor = it == pos.end() ? pos.front() : *it;
  s.cursor_valid = true;
}

uint64_t ResidencyManager::NextUseDistanceLocked(UnitId id) const {
  const State& s = *state_;
  if (id >= s.units.size()) return std::numeric_limits<uint64_t>::max();
  const std::vector<size_t>& pos = s.units[id].positions;
  if (pos.empty()) return std::numeric_limits<uint64_t>::max();
  const uint64_t n = s.schedule.size();
  auto it = std::upper_bound(pos.begin(), pos.end(), s.cursor);
  if (it != pos.end()) return *it - s.cursor;
  return pos.front() + n - s.cursor;
}

void ResidencyManager::RecomputePlacementLocked() {
  State& s = *state_;
  for (UnitState& u : s.units) {
    u.positions.clear();
    u.resident_set = u.streamed = false;
  }
  for (size_t i = 0; i < s.schedule.size(); ++i) s.units[s.schedule[i]].positions.push_back(i);
  std::vector<UnitId> ids;
  for (UnitId id = 0; id < s.units.size(); ++id) {
    if (!s.units[id].positions.empty()) ids.push_back(id);
  }
  if (ids.empty()) return;
  const Ledger& ledger = s.ledgers[0];
  const uint64_t held = ledger.kv + ledger.workspace;
  const uint64_t avail = ledger.budget > held ? ledger.budget - held : 0;
  std::vector<PlanUnit> plan_units;
  for (UnitId id : ids) {
    const UnitState& u = s.units[id];
    plan_units.push_back(PlanUnit{u.spec.name, u.spec.kind, u.spec.index, u.footprint, 0, 0});
  }
  const std::vector<bool> resident = ChoosePlacement(plan_units, avail, s.options.prefetch_depth).resident;
  for (size_t i = 0; i < ids.size(); ++i) {
    s.units[ids[i]].resident_set = resident[i];
    s.units[ids[i]].streamed = !resident[i];
  }
}

std::optional<LoadPlan> ResidencyManager::NextPrefetchLocked() {
  State& s = *state_;
  const size_t n = s.schedule.size();
  if (n == 0) return std::nullopt;
  std::vector<bool> seen(s.units.size(), false);
  for (size_t k = 1; k <= n; ++k) {
    const UnitId id = s.schedule[(s.cursor + k) % n];
    if (seen[id]) continue;
    seen[id] = true;
    UnitState& u = s.units[id];
    if (u.copies[0].phase != CopyPhase::kAbsent) continue;
    if (u.streamed) {
      // Make a slot: at most prefetch_depth - 1 other streamed units may stay, and only units needed later
      // than this one may give way.
      const uint32_t keep = static_cast<uint32_t>(s.options.prefetch_depth) - 1;
      if (!TrimStreamedLocked(keep, NextUseDistanceLocked(id))) return std::nullopt;
    }
    Result<LoadPlan> plan = BeginLoadLocked(id, Tier::kGpu, LoadMode::kPrefetch);
    if (!plan.ok()) return std::nullopt;
    s.counters.prefetches_issued++;
    return std::move(plan).value();
  }
  return std::nullopt;
}

bool ResidencyManager::TrimStreamedLocked(uint32_t keep, uint64_t min_distance) {
  State& s = *state_;
  for (;;) {
    uint32_t on_gpu = 0;
    std::optional<UnitId> victim;
    uint64_t victim_distance = 0;
    for (UnitId other = 0; other < s.units.size(); ++other) {
      const UnitState& o = s.units[other];
      if (!o.streamed || o.copies[0].phase == CopyPhase::kAbsent) continue;
      ++on_gpu;
      const UnitCopy& c = o.copies[0];
      if (c.phase != CopyPhase::kReady || c.leases > 0 || c.readers > 0) continue;
      const uint64_t d = NextUseDistanceLocked(other);
      if (!victim || d > victim_distance) {
        victim = other;
        victim_distance = d;
      }
    }
    if (on_gpu <= keep) return true;
    if (!victim || victim_distance <= min_distance) return false;
    EvictLocked(*victim, Tier::kGpu);
  }
}

void ResidencyManager::IssuePrefetches() {
  State& s = *state_;
  if (!s.options.prefetch) return;
  // Reap arrived copies that nobody waited for, so they count as resident (and become evictable).
  std::vector<std::tuple<UnitId, Tier, std::shared_ptr<PendingCopy>>> arriving;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.schedule.empty()) return;
    // The plain path: every scheduled unit resident and nothing arriving — nothing to reap or prefetch.
    bool all_ready = true;
    for (UnitId id : s.schedule) all_ready = all_ready && s.units[id].copies[0].phase == CopyPhase::kReady;
    for (UnitId id = 0; all_ready && id < s.units.size(); ++id) {
      all_ready = s.units[id].copies[0].phase != CopyPhase::kArriving &&
                  s.units[id].copies[1].phase != CopyPhase::kArriving;
    }
    if (all_ready) return;
    for (UnitId id = 0; id < s.units.size(); ++id) {
      for (Tier t : {Tier::kGpu, Tier::kPinned}) {
        const UnitCopy& c = s.units[id].copies[t == Tier::kGpu ? 0 : 1];
        if (c.phase == CopyPhase::kArriving && c.leases == 0) arriving.emplace_back(id, t, c.pending);
      }
    }
  }
  std::vector<std::tuple<UnitId, Tier, std::shared_ptr<PendingCopy>>> done;
  for (auto& a : arriving) {
    if (std::get<2>(a)->Done()) done.push_back(a);
  }
  if (!done.empty()) {
    std::vector<Status> statuses;
    for (auto& [id, t, p] : done) statuses.push_back(p->Wait());  // returns at once: already done
    std::lock_guard<std::mutex> lock(s.mu);
    for (size_t i = 0; i < done.size(); ++i) {
      auto& [id, t, p] = done[i];
      if (s.units[id].copies[t == Tier::kGpu ? 0 : 1].pending == p) FinishLoadLocked(id, t, statuses[i]);
    }
  }
  for (size_t i = 0; i <= s.units.size(); ++i) {
    std::optional<LoadPlan> plan;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      plan = NextPrefetchLocked();
    }
    if (!plan) break;
    DrainGraveyard();
    RunLoad(*plan);
  }
  DrainGraveyard();
}

}  // namespace mineru::residency
