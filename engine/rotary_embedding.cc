#include "engine/rotary_embedding.h"

namespace mineru::engine {

RotaryEmbedding::RotaryEmbedding(int64_t head_dim, double theta) : head_dim_(head_dim) {
  // theta ** (2i / d) in float32, then its reciprocal, as the reference computes it.
  at::Tensor exponent = at::arange(0, head_dim, 2, at::kLong).to(at::kFloat) / static_cast<double>(head_dim);
  inv_freq_ = 1.0 / at::pow(theta, exponent);
}

std::pair<at::Tensor, at::Tensor> RotaryEmbedding::Tables(const at::Tensor& positions) const {
  at::Tensor inv = inv_freq_.to(positions.device());
  at::Tensor freqs = positions.to(at::kFloat).unsqueeze(1) * inv.unsqueeze(0);  // [n, d/2]
  at::Tensor emb = at::cat({freqs, freqs}, -1);
  return {emb.cos(), emb.sin()};
}

at::Tensor RotaryEmbedding::Apply(const at::Tensor& x, const at::Tensor& positions) const {
  auto [cos, sin] = Tables(positions);
  cos = cos.to(x.scalar_type()).unsqueeze(1);  // [n, 1, d]
  sin = sin.to(x.scalar_type()).unsqueeze(1);
  const int64_t half = head_dim_ / 2;
  at::Tensor a = x.narrow(-1, 0, half);
  at::Tensor b = x.narrow(-1, half, half);
  at::Tensor rotated = at::cat({-b, a}, -1);
  return x * cos + rotated * sin;
}

}  // namespace mineru::engine
