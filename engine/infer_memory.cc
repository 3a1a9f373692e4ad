// InferMemory: see infer_memory.h.
#include "engine/infer_memory.h"

#include <algorithm>

#include "engine/decoder_workspace.h"
#include "engine/lease_conversion.h"
#include "engine/paged_kv_cache.h"
#include "engine/residency_weight_source.h"
#include "engine/vision_workspace.h"

namespace mineru::engine {

InferMemory PlanInferMemory(const ModelConfig& config, const InferMemoryRequest& r) {
  InferMemory m;
  uint64_t largest = 0;
  for (const UnitInfo& u : r.units) {
    const uint64_t bytes = ResidencyWeightSource::FootprintBytes(u);
    m.weights_total_bytes += bytes;
    largest = std::max(largest, bytes);
  }
  m.weight_budget_bytes =
      r.weight_budget_fraction >= 0
          ? static_cast<uint64_t>(static_cast<double>(m.weights_total_bytes) * r.weight_budget_fraction)
          : r.weight_budget_bytes;
  m.weight_budget_bytes = std::max(m.weight_budget_bytes, largest);

  const TextConfig& t = config.text;
  m.kv_pool_bytes = PagedKvCache::PoolBytes(t, r.compute_dtype, r.kv_page_tokens, r.kv_capacity_tokens);

  const int64_t total = r.prompt_tokens + r.generate;
  DecoderWorkspaceShape prefill;
  prefill.rows = prefill.max_slice_rows = std::max<int64_t>(std::min(r.prefill_chunk, r.prompt_tokens), 1);
  prefill.logit_rows = r.all_prompt_logits ? prefill.rows : 1;
  prefill.max_keys = total;
  prefill.key_block_tokens = r.key_block_tokens;
  prefill.on_cpu = true;  // mineru-infer computes on the CPU (HostDevice)
  DecoderWorkspaceShape decode;
  decode.rows = decode.max_slice_rows = decode.logit_rows = 1;
  decode.max_keys = total;
  decode.key_block_tokens = r.key_block_tokens;
  decode.on_cpu = true;
  m.workspace_bytes = std::max(DecoderWorkspaceBytes(t, r.compute_dtype, prefill),
                               DecoderWorkspaceBytes(t, r.compute_dtype, decode)) +
                      LeaseConversionBytes(r.units, r.compute_dtype);
  if (r.vision_crops > 0 && config.multimodal) {
    VisionWorkspaceShape vision;
    vision.crops = r.vision_crops;
    vision.crops_per_chunk = r.vision_crops_per_chunk;
    vision.crops_per_attention = r.vision_crops_per_attention;
    vision.on_cpu = true;
    m.workspace_bytes = std::max(
        m.workspace_bytes, VisionWorkspaceBytes(*config.multimodal, t.hidden_size, r.compute_dtype, vision) +
                               VisionLeaseConversionBytes(r.units, r.compute_dtype));
  }
  m.gpu_budget_bytes = m.weight_budget_bytes + m.kv_pool_bytes + m.workspace_bytes;
  return m;
}

}  // namespace mineru::engine
