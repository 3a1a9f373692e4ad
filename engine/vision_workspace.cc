// VisionWorkspaceBytes: see vision_workspace.h. Each term names the tensors it stands for.
#include "engine/vision_workspace.h"

#include <algorithm>

#include "engine/dense_ops.h"
#include "engine/vision_attention.h"

namespace mineru::engine {

uint64_t VisionWorkspaceBytes(const MultimodalConfig& config, int64_t text_hidden,
                              at::ScalarType compute_dtype, const VisionWorkspaceShape& shape) {
  const VisionConfig& v = config.vision;
  const uint64_t s = c10::elementSize(compute_dtype);
  const uint64_t f = 4;
  const auto u = [](int64_t x) { return static_cast<uint64_t>(std::max<int64_t>(x, 0)); };
  const uint64_t crops = u(shape.crops);
  const uint64_t chunk = std::min(u(std::max<int64_t>(shape.crops_per_chunk, 1)), crops);
  const uint64_t group = std::min(u(std::max<int64_t>(shape.crops_per_attention, 1)), chunk);
  const uint64_t n = u(v.patches_per_side) * u(v.patches_per_side);
  const uint64_t h = u(v.hidden_size);
  const uint64_t inter = u(v.intermediate_size);
  const uint64_t heads = u(v.num_heads);
  const uint64_t pixels = u(v.num_channels) * u(v.image_size) * u(v.image_size);
  const uint64_t patch = u(v.num_channels) * u(v.patch_size) * u(v.patch_size);
  const uint64_t th = u(text_hidden);
  const bool widened = compute_dtype == at::kBFloat16 && shape.on_cpu;
  const uint64_t wblock = static_cast<uint64_t>(kWidenBlockOutputs);
  // The dense product of `rows` rows of width `in` into `out` outputs, widened on the CPU in bf16:
  // the input, the float32 result and its block copy, one widened weight block.
  const auto widen = [&](uint64_t rows, uint64_t in, uint64_t out) {
    return widened ? rows * in * f + rows * out * f * (out > wblock ? 2 : 1) + std::min(out, wblock) * in * f
                   : 0;
  };

  // The pixels in the compute dtype on the device; the patch convolution and its flattened, transposed
  // result; the position embeddings added (a new tensor).
  const uint64_t embeddings = crops * pixels * s + 3 * crops * n * h * s +
                              (widened ? crops * pixels * f + 2 * crops * n * h * f + h * patch * f : 0);
  // Every crop's residual stream, the layer's input and output (chunks are written into the output).
  const uint64_t stream = 2 * crops * n * h * s;
  // One chunk through one encoder layer (r rows): the first norm, q/k/v and their head-major copies,
  // per attention group the scores, their scaling, the float32 softmax and its cast back, with the
  // widened q, k and scores in bf16 on the CPU; the attention output (per group, concatenated, reordered),
  // out_proj and the residual, the second norm, fc1 and its gelu, fc2 and the residual.
  const uint64_t r = chunk * n;
  const uint64_t scores = group * heads * n * n;
  const uint64_t aten_attention =
      scores * (3 * s + f) + (widened ? 2 * scores * f + 3 * group * n * h * f : 0);
  // The fused CPU kernel (vision_attention.h) writes no scores: float32 copies of the scaled queries,
  // the transposed (padded) keys and the values, the accumulator (divided in place), the running state
  // and each row's last key, and the result in the compute dtype.
  const uint64_t fused_attention = 3 * r * h * f + chunk * heads * 8 * u(v.head_dim) * f + r * h * f +
                                   2 * chunk * heads * n * f + r * 8 + r * h * s;
  const uint64_t attention =
      VisionAttentionFused(shape.on_cpu, v.head_dim) ? fused_attention : aten_attention;
  const uint64_t layer = r * h * s + 6 * r * h * s + attention + 3 * r * h * s + 2 * r * h * s + r * h * s +
                         2 * r * inter * s + 2 * r * h * s + widen(r, h, inter) + widen(r, inter, h);
  // The projector over every crop: its two products and the gelu between them.
  const uint64_t projector =
      3 * crops * n * th * s + widen(crops * n, u(config.mm_hidden_size), th) + widen(crops * n, th, th);
  const uint64_t siglip = shape.keep_siglip ? crops * n * h * s : 0;
  return embeddings + stream + std::max(layer, projector) + siglip;
}

}  // namespace mineru::engine
