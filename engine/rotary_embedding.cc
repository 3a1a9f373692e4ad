#include "engine/rotary_embedding.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <vector>

namespace mineru::engine {
namespace {

// x' = x·cos + (-b, a)·sin for every head of one row, rounding to x's dtype where the reference's
// separate operations do: cos and sin, each product, and the sum. cos, sin: scratch of d/2 floats.
template <typename T>
void RotateRow(const T* x, float position, const float* inv_freq, T* out, int64_t heads, int64_t d,
               float* cos, float* sin) {
  const int64_t half = d / 2;
  for (int64_t f = 0; f < half; ++f) {
    const float angle = position * inv_freq[f];
    cos[f] = static_cast<float>(static_cast<T>(std::cos(angle)));
    sin[f] = static_cast<float>(static_cast<T>(std::sin(angle)));
  }
  for (int64_t h = 0; h < heads; ++h) {
    const T* xh = x + h * d;
    T* oh = out + h * d;
    for (int64_t f = 0; f < half; ++f) {
      const float a = static_cast<float>(xh[f]), b = static_cast<float>(xh[f + half]);
      const float ac = static_cast<T>(a * cos[f]), bs = static_cast<T>(-b * sin[f]);
      const float bc = static_cast<T>(b * cos[f]), as = static_cast<T>(a * sin[f]);
      oh[f] = static_cast<T>(ac + bs);
      oh[f + half] = static_cast<T>(bc + as);
    }
  }
}

// Every row in one pass on the CPU (rows split over threads when there are many).
template <typename T>
void RotateRows(const T* x, const int64_t* positions, const float* inv_freq, T* out, int64_t rows,
                int64_t heads, int64_t d) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(heads * d, 1));
  at::parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    std::vector<float> cos(static_cast<size_t>(d / 2)), sin(static_cast<size_t>(d / 2));
    for (int64_t r = r0; r < r1; ++r) {
      RotateRow(x + r * heads * d, static_cast<float>(positions[r]), inv_freq, out + r * heads * d, heads, d,
                cos.data(), sin.data());
    }
  });
}

}  // namespace

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
  const at::ScalarType t = x.scalar_type();
  if (x.device().is_cpu() && (t == at::kFloat || t == at::kBFloat16) &&
      positions.scalar_type() == at::kLong) {
    const at::Tensor xc = x.contiguous();
    const at::Tensor pos = positions.contiguous();
    at::Tensor out = at::empty_like(xc);
    const int64_t rows = x.size(0), heads = x.size(1);
    if (t == at::kFloat) {
      RotateRows(xc.data_ptr<float>(), pos.data_ptr<int64_t>(), inv_freq_.data_ptr<float>(),
                 out.data_ptr<float>(), rows, heads, head_dim_);
    } else {
      RotateRows(xc.data_ptr<at::BFloat16>(), pos.data_ptr<int64_t>(), inv_freq_.data_ptr<float>(),
                 out.data_ptr<at::BFloat16>(), rows, heads, head_dim_);
    }
    return out;
  }
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
