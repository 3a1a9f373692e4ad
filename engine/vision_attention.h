// The vision tower's attention: every patch of a crop attends to every patch of the same crop
// (bidirectional, no mask), multi-head with as many key/value heads as query heads.
#pragma once

#include <ATen/ATen.h>

namespace mineru::engine {

// q, k, v: [crops, heads, patches, head_dim], in the compute dtype. Returns softmax(q·kᵀ/√head_dim)·v,
// [crops, heads, patches, head_dim] in q's dtype. On a CPU the fused kernel (attention_cpu_kernel.h)
// runs every crop at once in float32 and writes no scores; elsewhere the scores of
// `crops_per_attention` crops at a time exist at once.
at::Tensor VisionAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           int64_t crops_per_attention);

// True when VisionAttention takes the fused kernel for this head size on this device.
bool VisionAttentionFused(bool on_cpu, int64_t head_dim);

}  // namespace mineru::engine
