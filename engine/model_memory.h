// ModelMemory: every size the model takes in memory, computed in one place — the weights per unit as
// the residency manager holds them, the KV pool (PagedKvCache's layout: bytes per token, pages, the
// null page) and the workspace bound of each kind of forward: a vision burst, a prefill chunk, a decode
// step and the page scheduler's mixed step. The daemon's memory plan (pipeline/memory_plan.h, which
// also serves `minerud plan`), mineru-infer and the benchmarks size through these functions.
// Design note: a forward's bound is what it reserves from the manager's kGpu tier before it runs
// (Qwen2Decoder, VisionTower): its activations (decoder_workspace.h, vision_workspace.h) plus the
// largest per-lease dtype conversion (lease_conversion.h). The kGpu budget of one run holds the
// weights' share, the KV pool and the largest forward's bound at once (InferMemory below).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "engine/decoder_workspace.h"
#include "engine/model_config.h"
#include "engine/model_units.h"
#include "engine/vision_workspace.h"
#include "residency/planner.h"

namespace mineru::engine {

// The weights as the manager holds them (stored dtype, aligned: ResidencyWeightSource::FootprintBytes).
struct WeightFootprint {
  uint64_t total_bytes = 0;
  uint64_t largest_unit_bytes = 0;  // the smallest streaming slot
};
WeightFootprint WeightFootprintOf(const std::vector<UnitInfo>& units);

// The units in pass order as the planner sees them (ResidencyPlanUnit: the manager's kinds and sizes).
std::vector<residency::PlanUnit> PlacementUnits(const std::vector<UnitInfo>& units);

// A decoder forward's kGpu bound: its activations plus the largest decoder lease's conversion.
uint64_t DecoderForwardBytes(const TextConfig& text, const std::vector<UnitInfo>& units, at::ScalarType dtype,
                             const DecoderWorkspaceShape& shape);
// A vision encode's kGpu bound: its activations plus the largest vision lease's conversion.
uint64_t VisionForwardBytes(const ModelConfig& config, const std::vector<UnitInfo>& units,
                            at::ScalarType dtype, const VisionWorkspaceShape& shape);

// The decoder forwards the callers size.
// One sequence's prefill chunk of `chunk_rows` new tokens, attending up to `max_keys`.
DecoderWorkspaceShape PrefillChunkShape(int64_t chunk_rows, int64_t max_keys, bool all_logits,
                                        int64_t key_block_tokens, bool on_cpu);
// One decode step of `sequences` sequences (one new token each), the longest attending `max_keys`.
DecoderWorkspaceShape DecodeStepShape(int64_t sequences, int64_t max_keys, int64_t key_block_tokens,
                                      bool on_cpu);
// The page scheduler's step: `step_tokens` rows, the next token of up to `max_running` pages plus at
// most one prefill chunk of `prefill_chunk` rows, each attending up to `max_keys`.
DecoderWorkspaceShape MixedStepShape(int64_t step_tokens, int64_t prefill_chunk, int64_t max_running,
                                     int64_t max_keys, bool on_cpu);

// The kGpu budget of one engine run through the residency manager (mineru-infer, engine_bench): the
// weights' share + the KV pool + the largest forward's bound, so the manager's one budget covers all
// three and its peak is the run's peak. The share is "bytes (or P% of the weights) kept resident",
// raised to the largest unit (the manager streams through a slot at least that large). The workspace is
// the largest of a prefill chunk, a decode step of `decode_sequences` and the vision encode.
struct InferMemoryRequest {
  std::vector<UnitInfo> units;
  uint64_t weight_budget_bytes = 0;    // with weight_budget_fraction unset
  double weight_budget_fraction = -1;  // >= 0: this share of the weights' footprint
  at::ScalarType compute_dtype = at::kFloat;
  bool on_cpu = true;  // mineru-infer and engine_bench compute on the CPU (HostDevice)
  int64_t kv_page_tokens = 16;
  int64_t kv_capacity_tokens = 0;  // spliced prompt + generated tokens (+ slack)
  int64_t prompt_tokens = 0;       // spliced prompt length (upper bound)
  int64_t generate = 0;
  int64_t prefill_chunk = 512;
  bool all_prompt_logits = false;
  int64_t decode_sequences = 1;  // sequences of one decode step
  int64_t decode_max_keys = 0;   // keys a decode step attends; 0: prompt_tokens + generate
  int64_t key_block_tokens = 512;
  int64_t vision_crops = 0;  // crops of one vision encode (0: no image)
  int64_t vision_crops_per_chunk = 4;
  int64_t vision_crops_per_attention = 1;
};

struct InferMemory {
  uint64_t weights_total_bytes = 0;  // every unit's footprint
  uint64_t weight_budget_bytes = 0;  // the weights' share (at least the largest unit)
  uint64_t kv_pool_bytes = 0;        // the pool's kGpu region, null page included
  uint64_t workspace_bytes = 0;      // the largest forward's bound
  uint64_t gpu_budget_bytes = 0;     // the sum: the manager's kGpu budget
};

InferMemory PlanInferMemory(const ModelConfig& config, const InferMemoryRequest& request);

}  // namespace mineru::engine
