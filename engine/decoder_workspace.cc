// DecoderWorkspaceBytes: see decoder_workspace.h. Each term names the tensors it stands for.
#include "engine/decoder_workspace.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include "engine/attention_cpu_kernel.h"
#include "engine/bf16_rows_kernel.h"
#include "engine/dense_ops.h"

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

  // On the CPU in float32 or bfloat16, RMSNorm, RoPE and the gated activation run fused row kernels
  // (rms_norm.cc, rotary_embedding.cc, swiglu_mlp.cc) that allocate only their outputs.
  const bool fused_elementwise =
      shape.on_cpu && (compute_dtype == at::kFloat || compute_dtype == at::kBFloat16);
  const uint64_t threads = static_cast<uint64_t>(std::max(at::get_num_threads(), 1));

  // Alive through the forward: the packed input (cat + dtype/device copy), positions (host + device).
  const uint64_t input = 2 * r * h * s + 2 * r * l + slices * 4 * l;
  // RmsNorm over n rows: fused, its output; else a float32 copy, square, normalised, back to the
  // dtype, times weight, and row stats.
  auto norm = [&](uint64_t n) { return fused_elementwise ? n * h * s : n * h * (3 * f + 2 * s) + 4 * n * f; };
  // One layer: two norms, q/k/v, RoPE (fused: the rotated q and k; else cos/sin tables and the rotated
  // halves of q, k's being smaller and coming after), the attention output per slice and packed,
  // o_proj and the residual, the MLP (gate, up, the activation, down), the layer's output.
  const uint64_t qkv = r * (heads + 2 * kvh) * d * s;
  const uint64_t rope = fused_elementwise
                            ? r * (heads + kvh) * d * s
                            : r * d * (5 * f + 2 * s) + r * (9 * heads * d / 2 + (heads + kvh) * d) * s;
  const uint64_t kv_write = 2 * r * l + 2 * r * kvh * d * s;
  // Attention of the largest slice (m queries) over one key block (b keys), float32 softmax state:
  // scaled queries (3 while reshaped), accumulator (old, rescaled, p.v, new), the final division and
  // reordering, scores and probabilities, the causal mask, row positions, max/argmax and corrections,
  // the gathered keys and values (dtype and float32, plus a contiguous copy for the batched matmul).
  // A decode step (one token per sequence) attends every sequence at once: `batch` of each, plus the
  // padding mask and positions.
  const uint64_t batch = (m <= 1 && slices > 1) ? slices : 1;
  const uint64_t q = m * batch;
  const uint64_t aten_attention =
      3 * q * heads * d * f + 4 * q * heads * d * f + 2 * q * heads * d * f + q * heads * d * s +
      2 * q * heads * b * f + q * heads * b + (heads + 2) * q * l + q * heads * (8 * f + 2 * l) +
      batch * (2 * b * kvh * d * (s + 2 * f) + 4 * b * l + b * l) + batch * b * (2 + l) + 2 * batch * l;
  // The fused CPU kernel (attention_cpu_kernel.h) writes no scores: the scaled, reordered queries,
  // the running state and accumulator, per block the key slots and the keys (transposed, padded) and
  // values in float32, and the division and reordering of the result. Those keys and values are
  // every sequence's at once, or with few rows per kv head (a decode step) one head's per thread.
  const uint64_t padded_block = (b + 7) / 8 * 8;
  const uint64_t group = heads / std::max<uint64_t>(kvh, 1);
  const uint64_t key_buffers = m * group <= static_cast<uint64_t>(kAttentionRowsPerTask)
                                   ? threads * d * (padded_block + b) * f
                                   : batch * kvh * d * (padded_block + b) * f;
  const uint64_t fused_attention = 5 * q * heads * d * f + 2 * q * heads * f + 2 * q * heads * d * f +
                                   q * heads * d * s + batch * b * l + key_buffers;
  const bool fused = shape.on_cpu && CpuAttentionKernelAvailable(c.head_dim);
  const uint64_t attention = fused ? fused_attention : aten_attention;
  const uint64_t attn_out = 2 * r * heads * d * s + 2 * r * h * s;
  const uint64_t mlp = 3 * r * inter * s + 2 * r * h * s;
  // bf16 products on the CPU (dense_ops.h) widen their operands to float32. With few rows
  // (bf16_rows_kernel.h): the input rows and, above 4 rows, their transposed copy; the weight is widened
  // in registers and the results come out in bf16. With more: the input rows, the result and its block
  // copy, one widened weight block (at most kWidenBlockOutputs rows of it).
  const bool widened = compute_dtype == at::kBFloat16 && shape.on_cpu;
  const bool few_rows_kernel = widened && Bf16RowsKernelAvailable();
  const uint64_t wblock = static_cast<uint64_t>(kWidenBlockOutputs);
  const auto few_rows = [&](uint64_t n_rows) { return few_rows_kernel && n_rows <= kBf16RowsKernelMaxRows; };
  const auto few_rows_widen = [&](uint64_t n_rows, uint64_t depth) {
    return n_rows * depth * f + (n_rows > 4 ? depth * 16 * f : 0);
  };
  // The result is built block by block (one more copy) only when it is wider than a block.
  const auto result = [&](uint64_t n_rows, uint64_t outputs) {
    return n_rows * outputs * f * (outputs > wblock ? 2 : 1);
  };
  uint64_t layer_widen = 0;
  if (few_rows(r)) {
    layer_widen = few_rows_widen(r, std::max(h, inter));
  } else if (widened) {
    layer_widen = r * inter * f + result(r, inter) +
                  std::max(std::min(inter, wblock) * h, std::min(h, wblock) * inter) * f;
  }
  uint64_t head_widen = 0;
  if (few_rows(rl)) {
    head_widen = few_rows_widen(rl, h);
  } else if (widened) {
    head_widen = rl * h * f + result(rl, vocab) + std::min(vocab, wblock) * h * f;
  }
  const uint64_t layer = 2 * norm(r) + qkv + rope + kv_write + attention + attn_out + mlp + layer_widen;
  // Head: the kept rows, the final norm, logits in the dtype and as float32 on the host.
  const uint64_t head = rl * h * s + 2 * rl * l + norm(rl) + rl * vocab * (s + f) + head_widen;
  return input + layer + head;
}

}  // namespace mineru::engine
