// ModelMemory: see model_memory.h.
#include "engine/model_memory.h"

#include <algorithm>

#include "engine/lease_conversion.h"
#include "engine/paged_kv_cache.h"
#include "engine/residency_weight_source.h"

namespace mineru::engine {

WeightFootprint WeightFootprintOf(const std::vector<UnitInfo>& units) {
  WeightFootprint w;
  for (const UnitInfo& u : units) {
    const uint64_t bytes = ResidencyWeightSource::FootprintBytes(u);
    w.total_bytes += bytes;
    w.largest_unit_bytes = std::max(w.largest_unit_bytes, bytes);
  }
  return w;
}

std::vector<residency::PlanUnit> PlacementUnits(const std::vector<UnitInfo>& units) {
  std::vector<residency::PlanUnit> out;
  out.reserve(units.size());
  for (const UnitInfo& u : units) out.push_back(ResidencyPlanUnit(u));
  return out;
}

uint64_t DecoderForwardBytes(const TextConfig& text, const std::vector<UnitInfo>& units, at::ScalarType dtype,
                             const DecoderWorkspaceShape& shape) {
  return DecoderWorkspaceBytes(text, dtype, shape) + LeaseConversionBytes(units, dtype);
}

uint64_t VisionForwardBytes(const ModelConfig& config, const std::vector<UnitInfo>& units,
                            at::ScalarType dtype, const VisionWorkspaceShape& shape) {
  if (!config.multimodal) return 0;
  return VisionWorkspaceBytes(*config.multimodal, config.text.hidden_size, dtype, shape) +
         VisionLeaseConversionBytes(units, dtype);
}

DecoderWorkspaceShape PrefillChunkShape(int64_t chunk_rows, int64_t max_keys, bool all_logits,
                                        int64_t key_block_tokens, bool on_cpu) {
  DecoderWorkspaceShape s;
  s.rows = s.max_slice_rows = std::max<int64_t>(chunk_rows, 1);
  s.logit_rows = all_logits ? s.rows : 1;
  s.max_keys = max_keys;
  s.key_block_tokens = key_block_tokens;
  s.on_cpu = on_cpu;
  return s;
}

DecoderWorkspaceShape DecodeStepShape(int64_t sequences, int64_t max_keys, int64_t key_block_tokens,
                                      bool on_cpu) {
  DecoderWorkspaceShape s;
  s.rows = s.logit_rows = s.num_slices = std::max<int64_t>(sequences, 1);
  s.max_slice_rows = 1;
  s.max_keys = max_keys;
  s.key_block_tokens = key_block_tokens;
  s.on_cpu = on_cpu;
  return s;
}

DecoderWorkspaceShape MixedStepShape(int64_t step_tokens, int64_t prefill_chunk, int64_t max_running,
                                     int64_t max_keys, bool on_cpu) {
  DecoderWorkspaceShape s;
  s.rows = step_tokens;
  s.max_slice_rows = std::min(prefill_chunk, step_tokens);
  s.num_slices = max_running + 1;
  s.logit_rows = max_running + 1;
  s.max_keys = max_keys;
  s.on_cpu = on_cpu;
  return s;
}

InferMemory PlanInferMemory(const ModelConfig& config, const InferMemoryRequest& r) {
  InferMemory m;
  const WeightFootprint w = WeightFootprintOf(r.units);
  m.weights_total_bytes = w.total_bytes;
  m.weight_budget_bytes =
      r.weight_budget_fraction >= 0
          ? static_cast<uint64_t>(static_cast<double>(w.total_bytes) * r.weight_budget_fraction)
          : r.weight_budget_bytes;
  m.weight_budget_bytes = std::max(m.weight_budget_bytes, w.largest_unit_bytes);
  m.kv_pool_bytes =
      PagedKvCache::PoolBytes(config.text, r.compute_dtype, r.kv_page_tokens, r.kv_capacity_tokens);

  const int64_t total = r.prompt_tokens + r.generate;
  const int64_t decode_keys = r.decode_max_keys > 0 ? r.decode_max_keys : total;
  const DecoderWorkspaceShape prefill = PrefillChunkShape(std::min(r.prefill_chunk, r.prompt_tokens), total,
                                                          r.all_prompt_logits, r.key_block_tokens, r.on_cpu);
  const DecoderWorkspaceShape decode =
      DecodeStepShape(r.decode_sequences, decode_keys, r.key_block_tokens, r.on_cpu);
  m.workspace_bytes = std::max(DecoderForwardBytes(config.text, r.units, r.compute_dtype, prefill),
                               DecoderForwardBytes(config.text, r.units, r.compute_dtype, decode));
  if (r.vision_crops > 0 && config.multimodal) {
    VisionWorkspaceShape vision;
    vision.crops = r.vision_crops;
    vision.crops_per_chunk = r.vision_crops_per_chunk;
    vision.crops_per_attention = r.vision_crops_per_attention;
    vision.on_cpu = r.on_cpu;
    m.workspace_bytes =
        std::max(m.workspace_bytes, VisionForwardBytes(config, r.units, r.compute_dtype, vision));
  }
  m.gpu_budget_bytes = m.weight_budget_bytes + m.kv_pool_bytes + m.workspace_bytes;
  return m;
}

}  // namespace mineru::engine
