// InferMemory: the kGpu budget of one `mineru-infer` run through the residency manager:
// the weights' share + the KV pool + the largest workspace, so the manager's one budget
// covers all three and its peak (checked by the tests) is the run's peak.
// Design note: --vram-budget keeps its meaning, "bytes (or P% of the weights) kept resident": P% is of
// the weights as the manager holds them (stored dtype, aligned). The share is raised to the largest unit
// when smaller, because the manager streams units through a slot at least that large (the run says so
// in its JSON: residency.weight_budget_bytes). The KV pool holds kv_capacity_tokens; the workspace is
// the largest DecoderWorkspaceBytes over the run's prefill chunks and decode steps, or the vision
// encode's VisionWorkspaceBytes when larger (they are reserved one after the other).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "engine/model_config.h"
#include "engine/model_units.h"

namespace mineru::engine {

struct InferMemoryRequest {
  std::vector<UnitInfo> units;
  uint64_t weight_budget_bytes = 0;    // with weight_budget_fraction unset
  double weight_budget_fraction = -1;  // >= 0: this share of the weights' footprint
  at::ScalarType compute_dtype = at::kFloat;
  int64_t kv_page_tokens = 16;
  int64_t kv_capacity_tokens = 0;  // spliced prompt + generated tokens (+ slack)
  int64_t prompt_tokens = 0;       // spliced prompt length (upper bound)
  int64_t generate = 0;
  int64_t prefill_chunk = 512;
  bool all_prompt_logits = false;
  int64_t key_block_tokens = 512;
  int64_t vision_crops = 0;  // crops of the page's image (0: no image)
  int64_t vision_crops_per_chunk = 4;
  int64_t vision_crops_per_attention = 1;
};

struct InferMemory {
  uint64_t weights_total_bytes = 0;  // every unit's footprint
  uint64_t weight_budget_bytes = 0;  // the weights' share (at least the largest unit)
  uint64_t kv_pool_bytes = 0;        // the pool's kGpu region, null page included
  uint64_t workspace_bytes = 0;      // the largest forward's workspace bound
  uint64_t gpu_budget_bytes = 0;     // the sum: the manager's kGpu budget
};

InferMemory PlanInferMemory(const ModelConfig& config, const InferMemoryRequest& request);

}  // namespace mineru::engine
