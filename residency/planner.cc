// Planner: see planner.h for the model. The simulation mirrors ResidencyManager's prefetching: streamed
// unit j may start copying once streamed unit j - depth has finished computing (its slot is free), the
// copy queue is serial, and each unit computes when its bytes are in and its predecessor is done.
#include "residency/planner.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "residency/stats.h"

namespace mineru::residency {

namespace {

int CountDecoderLayers(const std::vector<PlanUnit>& units) {
  int n = 0;
  for (const PlanUnit& u : units) {
    if (u.kind == UnitKind::kDecoderLayer) n = std::max(n, u.index + 1);
  }
  return n;
}

double ComputeMs(const PlanUnit& u, int batch) {
  return u.compute_ms_fixed + u.compute_ms_per_seq * static_cast<double>(batch);
}

double CopyMs(uint64_t bytes, double gbps) {
  return gbps > 0 ? static_cast<double>(bytes) / (gbps * 1e9) * 1e3 : 0;
}

}  // namespace

std::vector<bool> ChooseResidentSet(const std::vector<PlanUnit>& units, uint64_t capacity_bytes) {
  const int layers = CountDecoderLayers(units);
  std::vector<size_t> order(units.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return DemotionRank(units[a].kind, units[a].index, layers) >
           DemotionRank(units[b].kind, units[b].index, layers);
  });
  std::vector<bool> resident(units.size(), false);
  uint64_t used = 0;
  for (size_t i : order) {
    if (used + units[i].size_bytes <= capacity_bytes) {
      resident[i] = true;
      used += units[i].size_bytes;
    }
  }
  return resident;
}

PlacementChoice ChoosePlacement(const std::vector<PlanUnit>& units, uint64_t avail_bytes,
                                int prefetch_depth) {
  PlacementChoice best;
  uint64_t total = 0;
  for (const PlanUnit& u : units) total += u.size_bytes;
  if (total <= avail_bytes) {
    best.resident.assign(units.size(), true);
    return best;
  }
  std::vector<uint64_t> sizes;
  for (const PlanUnit& u : units) sizes.push_back(u.size_bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  bool found = false;
  uint64_t best_resident = 0;
  for (int slots = std::max(1, prefetch_depth); slots >= 1 && !found; --slots) {
    for (uint64_t slot : sizes) {
      const uint64_t slot_total = slot * static_cast<uint64_t>(slots);
      if (slot_total > avail_bytes) continue;
      uint64_t cap = avail_bytes - slot_total;
      // Units larger than a slot cannot stream: they must fit first.
      std::vector<PlanUnit> rest;
      std::vector<size_t> rest_index;
      std::vector<bool> resident(units.size(), false);
      uint64_t forced = 0;
      for (size_t i = 0; i < units.size(); ++i) {
        if (units[i].size_bytes > slot) {
          resident[i] = true;
          forced += units[i].size_bytes;
        } else {
          rest.push_back(units[i]);
          rest_index.push_back(i);
        }
      }
      if (forced > cap) continue;
      std::vector<bool> more = ChooseResidentSet(rest, cap - forced);
      uint64_t resident_bytes = forced;
      for (size_t k = 0; k < rest.size(); ++k) {
        if (more[k]) {
          resident[rest_index[k]] = true;
          resident_bytes += rest[k].size_bytes;
        }
      }
      if (!found || resident_bytes > best_resident) {
        found = true;
        best_resident = resident_bytes;
        best.resident = std::move(resident);
        best.slot_bytes = slot;
        best.slots = slots;
      }
    }
  }
  if (!found) {
    best.resident.assign(units.size(), false);
    best.slot_bytes = sizes.back();
    best.slots = 1;
  }
  return best;
}

double SimulatePassMs(const std::vector<PlanUnit>& units, const std::vector<bool>& resident,
                      const std::vector<double>& copy_ms, int batch_size, int prefetch_depth) {
  const size_t n = units.size();
  if (n == 0) return 0;
  constexpr int kPasses = 4;  // the last one is the cyclic steady state
  double compute_end = 0;     // of the previous unit
  double queue_free = 0;
  std::vector<double> streamed_compute_end;  // per streamed occurrence, in order
  std::vector<double> ready_at;
  double pass_start = 0;
  double last_pass_ms = 0;
  for (int pass = 0; pass < kPasses; ++pass) {
    pass_start = compute_end;
    // Copies of this pass's streamed units, issued as slots free up. A copy for occurrence j needs the
    // slot of occurrence j - depth, i.e. its compute end; compute ends are known in order, so simulate
    // unit by unit and issue a copy as soon as its slot condition is known.
    for (size_t i = 0; i < n; ++i) {
      double ready = 0;
      if (!resident[i]) {
        const size_t j = streamed_compute_end.size();
        double slot_free = 0;
        if (j >= static_cast<size_t>(prefetch_depth)) slot_free = streamed_compute_end[j - prefetch_depth];
        // The manager issues the copy at the Acquire that follows the slot's release, i.e. at once.
        const double start = std::max(queue_free, slot_free);
        queue_free = start + copy_ms[i];
        ready = queue_free;
      }
      const double start = std::max(compute_end, ready);
      compute_end = start + ComputeMs(units[i], batch_size);
      if (!resident[i]) streamed_compute_end.push_back(compute_end);
    }
    last_pass_ms = compute_end - pass_start;
  }
  return last_pass_ms;
}

namespace {
Result<Plan> PlanForBatchAndDepth(const PlanRequest& request, int batch_size, int depth);
}  // namespace

Result<Plan> PlanForBatch(const PlanRequest& request, int batch_size) {
  if (request.prefetch_depth > 0) return PlanForBatchAndDepth(request, batch_size, request.prefetch_depth);
  Result<Plan> best = PlanForBatchAndDepth(request, batch_size, 1);
  if (!best.ok()) return best;
  for (int depth = 2; depth <= kMaxPrefetchDepth; ++depth) {
    Result<Plan> p = PlanForBatchAndDepth(request, batch_size, depth);
    if (p.ok() && p->pass_ms < best->pass_ms * (1 - 1e-9)) best = std::move(p);
  }
  return best;
}

namespace {
Result<Plan> PlanForBatchAndDepth(const PlanRequest& request, int batch_size, int depth) {
  if (request.units.empty()) return InvalidArgument("the planner needs the model's units");
  if (batch_size < 1) return InvalidArgument("batch size must be at least 1");
  Plan plan;
  plan.batch_size = batch_size;
  plan.kv_bytes = request.kv_bytes_fixed + request.kv_bytes_per_seq * static_cast<uint64_t>(batch_size);
  plan.workspace_bytes = request.workspace_bytes_fixed + request.workspace_bytes_per_seq * batch_size;
  uint64_t largest = 0;
  for (const PlanUnit& u : request.units) {
    plan.weight_bytes += u.size_bytes;
    largest = std::max(largest, u.size_bytes);
  }
  const uint64_t held = plan.kv_bytes + plan.workspace_bytes;
  if (largest + held > request.gpu_budget_bytes) {
    return ResourceExhausted(
        "a budget of " + FormatBytes(request.gpu_budget_bytes) + " cannot hold the largest unit (" +
        FormatBytes(largest) + ") plus the KV pages and workspace of batch " + std::to_string(batch_size) +
        " (" + FormatBytes(held) + "); a budget of at least " + FormatBytes(largest + held) + " is needed");
  }
  const uint64_t avail = request.gpu_budget_bytes - held;
  const PlacementChoice choice = ChoosePlacement(request.units, avail, depth);
  const std::vector<bool>& resident = choice.resident;
  const int effective_depth = std::max(1, choice.slots);
  plan.prefetch_depth = effective_depth;
  plan.slot_bytes = choice.slot_bytes * static_cast<uint64_t>(choice.slots);
  std::vector<double> copy_ms(request.units.size(), 0);
  uint64_t pinned_used = 0;
  for (size_t i = 0; i < request.units.size(); ++i) {
    const PlanUnit& u = request.units[i];
    UnitPlacement p{u.name, u.size_bytes, Tier::kGpu};
    plan.compute_ms += ComputeMs(u, batch_size);
    if (resident[i]) {
      plan.resident_bytes += u.size_bytes;
    } else {
      plan.streamed_bytes += u.size_bytes;
      if (pinned_used + u.size_bytes <= request.pinned_budget_bytes) {
        pinned_used += u.size_bytes;
        p.tier = Tier::kPinned;
        copy_ms[i] = CopyMs(u.size_bytes, request.probe.h2d_gbps);
      } else {
        p.tier = Tier::kDisk;
        copy_ms[i] = CopyMs(u.size_bytes, request.probe.h2d_pageable_gbps);
      }
      plan.copy_ms += copy_ms[i];
    }
    plan.placements.push_back(std::move(p));
  }
  plan.pass_ms = SimulatePassMs(request.units, resident, copy_ms, batch_size, effective_depth);
  plan.lower_bound_ms = std::max(plan.compute_ms, plan.copy_ms);
  plan.sequences_per_s = plan.pass_ms > 0 ? batch_size * 1e3 / plan.pass_ms : 0;
  return plan;
}
}  // namespace

Result<Plan> MakePlan(const PlanRequest& request) {
  if (request.max_batch < 1) return InvalidArgument("max_batch must be at least 1");
  Result<Plan> best = PlanForBatch(request, 1);
  if (!best.ok()) return best;
  for (int b = 2; b <= request.max_batch; ++b) {
    Result<Plan> p = PlanForBatch(request, b);
    if (!p.ok()) break;  // larger batches need even more memory
    if (p->sequences_per_s > best->sequences_per_s) best = std::move(p);
  }
  return best;
}

std::string FormatPlan(const Plan& plan, const PlanRequest& request) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof(line), "%-40s %12s  %s\n", "unit", "size", "placement");
  out << line;
  for (const UnitPlacement& p : plan.placements) {
    const char* where = p.tier == Tier::kGpu      ? "gpu (resident)"
                        : p.tier == Tier::kPinned ? "streamed from pinned"
                                                  : "streamed from disk (pageable)";
    std::snprintf(line, sizeof(line), "%-40s %12s  %s\n", p.name.c_str(), FormatBytes(p.size_bytes).c_str(),
                  where);
    out << line;
  }
  out << "gpu budget " << FormatBytes(request.gpu_budget_bytes) << ", prefetch depth " << plan.prefetch_depth
      << ": weights resident " << FormatBytes(plan.resident_bytes) << " of " << FormatBytes(plan.weight_bytes)
      << ", streaming slots " << FormatBytes(plan.slot_bytes) << ", KV " << FormatBytes(plan.kv_bytes)
      << ", workspace " << FormatBytes(plan.workspace_bytes) << "\n";
  std::snprintf(
      line, sizeof(line),
      "batch %d: streamed %s per pass; compute %.2f ms, copy %.2f ms (h2d %.1f GB/s); predicted pass "
      "%.2f ms (lower bound %.2f ms), %.2f sequences/s\n",
      plan.batch_size, FormatBytes(plan.streamed_bytes).c_str(), plan.compute_ms, plan.copy_ms,
      request.probe.h2d_gbps, plan.pass_ms, plan.lower_bound_ms, plan.sequences_per_s);
  out << line;
  return out.str();
}

}  // namespace mineru::residency
