// The model backend's memory plan: every size the daemon needs from one model folder and one config —
// the weights, one page's worst-case KV tokens, the KV pool, the largest step's and vision burst's
// workspace, the smallest workable budget, the pinned budget, the residency manager's options and the
// placement they give — decided once here (the sizes themselves come from engine/model_memory.h) and
// used for loading, for budget changes at run time, for the stats and by `minerud plan`.
// Design note: the kGpu budget holds the resident weights, the KV pool and one forward's workspace at
// once. The pool takes pages on demand, so it is sized by tokens in flight, not by worst-case pages:
// kv_cache_tokens when set; else, under a budget, up to half of it (never below one worst-case page);
// with no budget (everything resident), room for max_batch worst-case pages capped at 4 GiB.
// The pinned budget (pinned_budget, else every weight plus, with preemption = swap, room for the whole
// KV pool swapped out) holds a staged copy of every weight, so streamed units and idle demotion read
// pinned memory, and swapped-out KV does not push weights out.
// The placement (PlacementRequest) is the manager's while the largest forward runs: the budget less the
// KV pool and the plan's workspace, split by ChoosePlacement into resident units and streaming slots.
// Between forwards the manager holds less workspace and may keep more units resident. With a pinned
// budget below every weight the planner gives pinned room to streamed units in pass order, while the
// manager stages whatever it loads first while room lasts: only the kGpu set is then the manager's.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/result.h"
#include "engine/checkpoint.h"
#include "engine/model_config.h"
#include "engine/model_units.h"
#include "residency/planner.h"
#include "residency/residency_manager.h"

namespace mineru::pipeline {

struct ModelMemoryPlan {
  at::ScalarType compute_dtype = at::kFloat;
  uint64_t weight_bytes = 0;        // every unit as the manager holds it
  uint64_t largest_unit_bytes = 0;  // the streaming slot
  int64_t prompt_tokens = 0;        // the spliced prompt of the largest page image
  int64_t page_tokens = 0;          // prompt_tokens + max_new_tokens: one page's KV at most
  int64_t max_new_tokens = 0;
  int64_t kv_tokens = 0;             // the KV pool
  uint64_t kv_bytes = 0;             // its kGpu region, null page included
  int64_t step_tokens = 0;           // rows of one decoder step
  int64_t vision_batch_crops = 0;    // crops of one vision burst
  uint64_t workspace_bytes = 0;      // the larger of a step's and a vision burst's
  uint64_t min_budget_bytes = 0;     // the KV pool + workspace + the largest unit: below it nothing runs
  uint64_t gpu_budget_bytes = 0;     // the manager's kGpu budget (vram_budget, or all of the above)
  uint64_t pinned_budget_bytes = 0;  // the manager's kPinned budget (the pinned arena)
  int64_t max_batch = 0;             // pages decoding at once
};

// The compute dtype `compute_dtype` ("auto", "bf16", "f32") names: auto is the checkpoint's own
// floating-point dtype (its largest tensors'), as on a GPU; float16 computes in f32.
Result<at::ScalarType> ResolveComputeDtype(const std::string& compute_dtype, const engine::Checkpoint& ckpt);
// The same for a model folder without weights: auto is `stored`, the dtype its config names.
Result<at::ScalarType> ResolveComputeDtype(const std::string& compute_dtype, at::ScalarType stored);

// Image tokens of the largest page image the model takes (the whole grid), once merged.
int64_t LargestImageTokens(const engine::MultimodalConfig& mm);

// The plan for `config` (vram_budget, kv_page_tokens, prefill_chunk, max_batch, kv_cache_tokens, ...).
// `prompt_tokens`: the MinerU prompt's token count including its one image token.
Result<ModelMemoryPlan> PlanModelMemory(const engine::ModelConfig& mc,
                                        const std::vector<engine::UnitInfo>& units, at::ScalarType dtype,
                                        bool on_cpu, const Config& config, int64_t prompt_tokens);

// kInvalidArgument naming the minimum when `budget` cannot run a page.
Status CheckBudget(uint64_t budget, const ModelMemoryPlan& plan);

// The residency manager's options for the plan (budgets, keep-alive).
residency::ResidencyOptions ResidencyOptionsFor(const ModelMemoryPlan& plan, const Config& config);

// The planner's request for the placement the manager builds with `options` (its budgets and prefetch
// depth): the units as the manager registers them, the KV pool and the plan's workspace held, batches
// up to max_batch. The caller adds the probe and per-unit compute for a throughput prediction.
residency::PlanRequest PlacementRequest(const ModelMemoryPlan& plan,
                                        const std::vector<engine::UnitInfo>& units,
                                        const residency::ResidencyOptions& options);

}  // namespace mineru::pipeline
