// DecoderWorkspaceBytes: see decoder_workspace.h. Each term names the tensors it stands for.
#include "engine/decoder_workspace.h"

#include <algorithm>

namespace mineru::engine {

uint64_t DecoderWorkspaceBytes(const TextConfig& c, at::ScalarType compute_dtype,
                               const DecoderWorkspaceShape& shape) {
  const uint64_t s = c10::elementSize(compute_dtype);
  const uint64_t f = 4;  // float32: norms, RoPE tables, softmax state
  const uint64_t l = 8;  // int64 indices
  const uint64_t r = static_cast<uint64_t>(std::max<int64_t>(shape.rows, 0));
  const uint64_t m = static_cast<uint64_t>(std::clamp<int64_t>(shape.max_slice_rows, 0, shape.rows));
  const uint64_t rl = static_cast<uint64_t>(std::clamp<int64_t>(shape.logit_rows, 0, shape.rows));
  const uint64_t b = static_cast<uint64_t>(
      std::max<int64_t>(std::min(shape.key_block_tokens, std::max(shape.max_keys, shape.max_slice_rows)), 1));
  const uint64_t h = static_cast<uint64_t>(c.hidden_size);
  const uint64_t heads = static_cast<uint64_t>(c.num_heads);
  const uint64_t kvh = static_cast<uint64_t>(c.num_kv_heads);
  const uint64_t d = static_cast<uint64_t>(c.head_dim);
  const uint64_t inter = static_cast<uint64_t>(c.intermediate_size);
  const uint64_t vocab = static_cast<uint64_t>(c.vocab_size);
  const uint64_t slices = static_cast<uint64_t>(std::max<int64_t>(shape.num_slices, 1));

  // Alive through the forward: the packed input (cat + dtype/device copy), positions (host + device).
  const uint64_t input = 2 * r * h * s + 2 * r * l + slices * 4 * l;
  // RmsNorm over n rows: float32 copy, square, normalised, back to the dtype, times weight; row stats.
  auto norm = [&](uint64_t n) { return n * h * (3 * f + 2 * s) + 4 * n * f; };
  // One layer: two norms, q/k/v, RoPE (cos/sin tables and the rotated halves of q; k's are smaller
  // and come after), the attention output per slice and packed, o_proj and the residual, the MLP
  // (gate, its silu, up; down), the layer's output.
  const uint64_t qkv = r * (heads + 2 * kvh) * d * s;
  const uint64_t rope = r * d * (5 * f + 2 * s) + r * (9 * heads * d / 2 + (heads + kvh) * d) * s;
  const uint64_t kv_write = 2 * r * l + 2 * r * kvh * d * s;
  // Attention of the largest slice (m queries) over one key block (b keys), float32 softmax state:
  // scaled queries (3 while reshaped), accumulator (old, rescaled, p.v, new), the final division and
  // reordering, scores and probabilities, the causal mask, row positions, max/argmax and corrections,
  // the gathered keys and values (dtype and float32, plus a contiguous copy for the batched matmul).
  const uint64_t attention = 3 * m * heads * d * f + 4 * m * heads * d * f + 2 * m * heads * d * f +
                             m * heads * d * s + 2 * m * heads * b * f + m * heads * b + (heads + 2) * m * l +
                             m * heads * (8 * f + 2 * l) + 2 * b * kvh * d * (s + 2 * f) + 4 * b * l + b * l;
  const uint64_t attn_out = 2 * r * heads * d * s + 2 * r * h * s;
  const uint64_t mlp = 3 * r * inter * s + 2 * r * h * s;
  const uint64_t layer = 2 * norm(r) + qkv + rope + kv_write + attention + attn_out + mlp;
  // Head: the kept rows, the final norm, logits in the dtype and as float32 on the host.
  const uint64_t head = rl * h * s + 2 * rl * l + norm(rl) + rl * vocab * (s + f);
  return input + layer + head;
}

uint64_t LeaseConversionBytes(const std::vector<UnitInfo>& units, at::ScalarType compute_dtype) {
  const at::ScalarType stored_as = compute_dtype == at::kFloat      ? at::kFloat
                                   : compute_dtype == at::kBFloat16 ? at::kBFloat16
                                                                    : at::kHalf;
  uint64_t largest = 0;
  for (const UnitInfo& u : units) {
    if (u.kind != UnitKind::kEmbedding && u.kind != UnitKind::kDecoderLayer && u.kind != UnitKind::kHead)
      continue;
    uint64_t bytes = 0;
    for (const UnitTensor& t : u.tensors) {
      const at::ScalarType stored = t.dtype == StorageDtype::kF32    ? at::kFloat
                                    : t.dtype == StorageDtype::kBF16 ? at::kBFloat16
                                                                     : at::kHalf;
      if (stored == stored_as) continue;
      uint64_t numel = 1;
      for (int64_t dim : t.shape) numel *= static_cast<uint64_t>(dim);
      bytes += numel * c10::elementSize(compute_dtype);
    }
    largest = std::max(largest, bytes);
  }
  return largest;
}

}  // namespace mineru::engine
