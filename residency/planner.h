// Planner: turns unit sizes, a measured probe and a budget into a placement, a batch size and a
// predicted pass time — before anything is loaded.
// Design note: the placement is the one ResidencyManager derives from an announced schedule: the kGpu
// budget minus the KV pages and workspace of the batch minus `prefetch_depth` streaming slots (each as
// large as the largest streamed unit) holds a resident set filled in reverse rule-1 order
// (DemotionRank: embedding/lm_head, norms, first/last layers kept longest); the rest is streamed every
// pass. The prediction simulates the manager's pipeline: one host->device queue copies the streamed
// units in schedule order, a copy may start when a slot is free, a unit computes when its bytes are in
// and the previous unit is done. Compute per unit is linear in the batch: fixed + per_sequence * batch.
// Pure functions: no device, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "residency/tier.h"
#include "residency/unit.h"

namespace mineru::residency {

struct PlanUnit {
  std::string name;
  UnitKind kind = UnitKind::kOther;
  int index = 0;
  uint64_t size_bytes = 0;
  double compute_ms_fixed = 0;    // per pass, independent of the batch
  double compute_ms_per_seq = 0;  // per sequence in the batch
};

// Measured at startup (or given): copy bandwidths in GB/s (1e9 bytes/s).
struct LinkProbe {
  double h2d_gbps = 25;          // pinned host -> device
  double h2d_pageable_gbps = 8;  // pageable (mmap'd file) -> device
  double disk_gbps = 3;          // file -> pinned, cold
};

struct PlanRequest {
  std::vector<PlanUnit> units;  // in the order of one pass
  LinkProbe probe;
  uint64_t gpu_budget_bytes = 0;
  uint64_t pinned_budget_bytes = 0;  // streamed units come from pinned memory when they fit there
  uint64_t kv_bytes_per_seq = 0;     // KV pages one sequence of the batch needs
  uint64_t kv_bytes_fixed = 0;       // a KV pool held whatever the batch (the daemon's, sized by its plan)
  uint64_t workspace_bytes_per_seq = 0;
  uint64_t workspace_bytes_fixed = 0;
  int max_batch = 1;  // the planner tries 1..max_batch
  // Streaming slots; 0 = the planner tries 1..kMaxPrefetchDepth and keeps the fastest (pass it on to
  // ResidencyOptions::prefetch_depth).
  int prefetch_depth = 0;
};

struct UnitPlacement {
  std::string name;
  uint64_t size_bytes = 0;
  Tier tier = Tier::kGpu;  // kGpu: resident; kPinned/kDisk: streamed from there every pass
};

inline constexpr int kMaxPrefetchDepth = 4;

struct Plan {
  std::vector<UnitPlacement> placements;  // in pass order
  int batch_size = 1;
  int prefetch_depth = 1;  // the streaming slots this plan assumes
  uint64_t weight_bytes = 0;
  uint64_t resident_bytes = 0;
  uint64_t streamed_bytes = 0;  // per pass
  uint64_t slot_bytes = 0;
  uint64_t kv_bytes = 0;
  uint64_t workspace_bytes = 0;
  double compute_ms = 0;       // per pass, at batch_size
  double copy_ms = 0;          // streamed bytes over the link
  double pass_ms = 0;          // predicted, with overlap
  double lower_bound_ms = 0;   // max(compute_ms, copy_ms)
  double sequences_per_s = 0;  // batch_size / pass_ms
};

// Which units stay on kGpu when `capacity_bytes` is available for resident weights: fills in reverse
// rule-1 order (highest DemotionRank first), skipping units that do not fit. resident[i] for units[i].
std::vector<bool> ChooseResidentSet(const std::vector<PlanUnit>& units, uint64_t capacity_bytes);

// Resident set plus streaming slots for `avail_bytes` of kGpu weight memory. Every unit larger than the
// slot size must be resident; among the rest, reverse rule-1 order fills what the slots leave. Tries each
// unit size as the slot size (and fewer slots when `prefetch_depth` do not fit) and keeps the choice with
// the most resident bytes. Used by ResidencyManager and by PlanForBatch, so both place alike.
struct PlacementChoice {
  std::vector<bool> resident;  // per unit
  uint64_t slot_bytes = 0;     // size of one streaming slot (0 when everything is resident)
  int slots = 0;
};
PlacementChoice ChoosePlacement(const std::vector<PlanUnit>& units, uint64_t avail_bytes, int prefetch_depth);

// The placement for one batch size; kResourceExhausted (naming the budget needed) when not even the
// largest unit plus the batch's KV and workspace fit.
Result<Plan> PlanForBatch(const PlanRequest& request, int batch_size);
// The batch size in 1..max_batch with the highest predicted sequences/s.
Result<Plan> MakePlan(const PlanRequest& request);

// Predicted pass time of the pipeline described above (cyclic steady state).
double SimulatePassMs(const std::vector<PlanUnit>& units, const std::vector<bool>& resident,
                      const std::vector<double>& copy_ms, int batch_size, int prefetch_depth);

// The placement table and the prediction as text (`minerud plan`).
std::string FormatPlan(const Plan& plan, const PlanRequest& request);

}  // namespace mineru::residency
