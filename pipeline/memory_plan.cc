#include "pipeline/memory_plan.h"

#include <algorithm>
#include <map>

#include "engine/image_merge.h"
#include "engine/mineru2_model.h"
#include "engine/model_memory.h"
#include "engine/paged_kv_cache.h"
#include "engine/safetensors_file.h"
#include "residency/stats.h"

namespace mineru::pipeline {
namespace {

// With vram_budget = 0 ("everything resident"): a cap on the KV cache.
constexpr uint64_t kMaxAutoKvBytes = 4ull << 30;

uint64_t StepWorkspaceBytes(const engine::ModelConfig& mc, const std::vector<engine::UnitInfo>& units,
                            at::ScalarType dtype, bool on_cpu, const Config& config,
                            const ModelMemoryPlan& p) {
  // A step: one row for each decoding page and at most one prefill chunk, all attending up to a page.
  const uint64_t decoder =
      engine::DecoderForwardBytes(mc.text, units, dtype,
                                  engine::MixedStepShape(p.step_tokens, config.prefill_chunk_tokens,
                                                         config.max_batch, p.page_tokens, on_cpu));
  // A vision burst runs between steps on the same thread: the budget holds the larger of the two.
  engine::VisionWorkspaceShape vision;
  vision.crops = p.vision_batch_crops;
  vision.crops_per_chunk = engine::ModelOptions().vision_crops_per_chunk;
  vision.crops_per_attention = engine::ModelOptions().vision_crops_per_attention;
  vision.on_cpu = on_cpu;
  return std::max(decoder, engine::VisionForwardBytes(mc, units, dtype, vision));
}

}  // namespace

Result<at::ScalarType> ResolveComputeDtype(const std::string& compute_dtype, at::ScalarType stored) {
  if (compute_dtype == "bf16") return at::kBFloat16;
  if (compute_dtype == "f32") return at::kFloat;
  if (compute_dtype != "auto") {
    return InvalidArgument("compute_dtype '" + compute_dtype + "' is not auto, bf16 or f32");
  }
  // Computing in float16 is not supported: half-precision checkpoints compute in bf16's range as f32.
  return stored == at::kBFloat16 ? at::kBFloat16 : at::kFloat;
}

Result<at::ScalarType> ResolveComputeDtype(const std::string& compute_dtype, const engine::Checkpoint& ckpt) {
  if (compute_dtype != "auto") return ResolveComputeDtype(compute_dtype, at::kFloat);
  // The dtype holding most of the checkpoint's floating-point bytes.
  std::map<at::ScalarType, uint64_t> bytes;
  for (const engine::SafetensorsFile& f : ckpt.files()) {
    for (const engine::TensorEntry& e : f.entries()) {
      const at::ScalarType t = engine::StorageDtypeToScalarType(e.dtype);
      if (at::isFloatingType(t)) bytes[t] += e.size_bytes;
    }
  }
  if (bytes.empty()) return InvalidArgument(ckpt.dir().string() + " holds no floating-point tensors");
  const auto most = std::max_element(bytes.begin(), bytes.end(),
                                     [](const auto& a, const auto& b) { return a.second < b.second; });
  return ResolveComputeDtype(compute_dtype, most->first);
}

int64_t LargestImageTokens(const engine::MultimodalConfig& mm) {
  return engine::MergedImageShape(engine::TileGrid{mm.max_grid_side, mm.max_grid_side},
                                  mm.vision.patches_per_side, mm.anyres_max_tiles)
      .num_tokens;
}

Result<ModelMemoryPlan> PlanModelMemory(const engine::ModelConfig& mc,
                                        const std::vector<engine::UnitInfo>& units, at::ScalarType dtype,
                                        bool on_cpu, const Config& config, int64_t prompt_tokens) {
  if (!mc.multimodal) return InvalidArgument("the memory plan needs a model with a vision tower");
  const engine::MultimodalConfig& mm = *mc.multimodal;
  ModelMemoryPlan p;
  p.compute_dtype = dtype;
  const engine::WeightFootprint weights = engine::WeightFootprintOf(units);
  p.weight_bytes = weights.total_bytes;
  p.largest_unit_bytes = weights.largest_unit_bytes;
  p.max_new_tokens = config.max_new_tokens > 0 ? config.max_new_tokens : mc.generation.max_new_tokens;
  p.prompt_tokens = prompt_tokens - 1 + LargestImageTokens(mm);
  p.page_tokens = p.prompt_tokens + p.max_new_tokens;
  p.step_tokens =
      config.step_tokens > 0 ? config.step_tokens : config.prefill_chunk_tokens + config.max_batch;
  if (p.step_tokens < 2)
    return InvalidArgument("step_tokens must be at least 2 (a decode row and a prefill row)");
  const int64_t crop_tokens = mm.vision.patches_per_side * mm.vision.patches_per_side;
  const int64_t page_crops = 1 + mm.max_grid_side * mm.max_grid_side;
  p.vision_batch_crops = std::max(page_crops, config.vision_batch_tokens / std::max<int64_t>(crop_tokens, 1));
  p.workspace_bytes = StepWorkspaceBytes(mc, units, dtype, on_cpu, config, p);

  const int64_t ps = config.kv_page_tokens;
  auto pool_bytes = [&](int64_t tokens) {
    return engine::PagedKvCache::PoolBytes(mc.text, dtype, ps, tokens);
  };
  const uint64_t per_token = engine::PagedKvCache::BytesPerToken(mc.text, dtype);
  const int64_t all_pages = config.max_batch * p.page_tokens;  // more KV than this is never used
  if (config.kv_cache_tokens > 0) {
    p.kv_tokens = config.kv_cache_tokens;
  } else if (config.vram_budget_bytes == 0) {
    p.kv_tokens = std::min<int64_t>(all_pages, static_cast<int64_t>(kMaxAutoKvBytes / per_token));
  } else {
    const uint64_t half = config.vram_budget_bytes / 2;
    const uint64_t room = half > p.workspace_bytes ? half - p.workspace_bytes : 0;
    p.kv_tokens = std::min<int64_t>(all_pages, static_cast<int64_t>(room / per_token));
  }
  // One page of the largest image writing its longest answer always fits.
  p.kv_tokens = std::max(p.kv_tokens, p.page_tokens);
  p.kv_bytes = pool_bytes(p.kv_tokens);
  p.min_budget_bytes = p.kv_bytes + p.workspace_bytes + p.largest_unit_bytes;
  p.gpu_budget_bytes = config.vram_budget_bytes > 0 ? config.vram_budget_bytes
                                                    : p.weight_bytes + p.kv_bytes + p.workspace_bytes;
  p.pinned_budget_bytes = config.pinned_budget_bytes;
  if (p.pinned_budget_bytes == 0) {
    p.pinned_budget_bytes = p.weight_bytes + (config.preemption == "swap" ? p.kv_bytes : 0);
  }
  p.max_batch = config.max_batch;
  return p;
}

Status CheckBudget(uint64_t budget, const ModelMemoryPlan& plan) {
  if (budget >= plan.min_budget_bytes) return Status::Ok();
  return InvalidArgument(
      "the model needs a vram_budget of at least " + std::to_string(plan.min_budget_bytes) + " bytes (" +
      residency::FormatBytes(plan.min_budget_bytes) + ": the KV cache of " + std::to_string(plan.kv_tokens) +
      " tokens, the largest step's working memory and the largest layer); " + residency::FormatBytes(budget) +
      " is too small");
}

residency::ResidencyOptions ResidencyOptionsFor(const ModelMemoryPlan& plan, const Config& config) {
  residency::ResidencyOptions ro;
  ro.gpu_budget_bytes = plan.gpu_budget_bytes;
  ro.pinned_budget_bytes = plan.pinned_budget_bytes;
  ro.keep_alive_ms = config.keep_alive_ms;
  return ro;
}

residency::PlanRequest PlacementRequest(const ModelMemoryPlan& plan,
                                        const std::vector<engine::UnitInfo>& units,
                                        const residency::ResidencyOptions& options) {
  residency::PlanRequest r;
  r.units = engine::PlacementUnits(units);
  r.gpu_budget_bytes = options.gpu_budget_bytes;
  r.pinned_budget_bytes = options.pinned_budget_bytes;
  r.kv_bytes_fixed = plan.kv_bytes;
  r.workspace_bytes_fixed = plan.workspace_bytes;
  r.max_batch = static_cast<int>(std::max<int64_t>(plan.max_batch, 1));
  r.prefetch_depth = options.prefetch_depth;
  return r;
}

}  // namespace mineru::pipeline
