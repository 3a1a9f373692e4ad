// Rotary position embedding, the "rotate half" form: for head vectors x (first half a, second half b)
// at position p, x' = x * cos(p * f) + (-b, a) * sin(p * f), with f = theta^(-2i/head_dim) repeated
// over both halves. Positions are plain 1-D sequence indices (image tokens count as ordinary ones).
#pragma once

#include <ATen/ATen.h>

namespace mineru::engine {

class RotaryEmbedding {
 public:
  RotaryEmbedding(int64_t head_dim, double theta);

  // x: [n, heads, head_dim]; positions: [n] int64 on x's device. Returns the rotated x (x's dtype).
  at::Tensor Apply(const at::Tensor& x, const at::Tensor& positions) const;
  // cos and sin tables [n, head_dim] in float32 for `positions`.
  std::pair<at::Tensor, at::Tensor> Tables(const at::Tensor& positions) const;

 private:
  int64_t head_dim_;
  at::Tensor inv_freq_;  // [head_dim / 2] float32, CPU
};

}  // namespace mineru::engine
