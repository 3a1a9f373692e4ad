#include "engine/rms_norm.h"

#include <ATen/Parallel.h>

#include <cmath>

namespace mineru::engine {
namespace {

// Rows per task: enough elements that a task outweighs handing it to a thread (a decode step's few
// rows stay on the calling thread).
int64_t RowGrain(int64_t d) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(d, 1)); }

// Each row in one pass on the CPU: the mean square summed in double, then the two roundings the
// reference makes for a reduced-precision x (the normalised value to x's dtype, and its product with
// the weight).
template <typename T>
void NormRows(const T* x, const T* weight, T* out, int64_t rows, int64_t d, float eps) {
  at::parallel_for(0, rows, RowGrain(d), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * d;
      double squares = 0;
      for (int64_t j = 0; j < d; ++j) {
        const float v = static_cast<float>(xr[j]);
        squares += static_cast<double>(v) * v;
      }
      const float inv = 1.0f / std::sqrt(static_cast<float>(squares / d) + eps);
      T* o = out + r * d;
      for (int64_t j = 0; j < d; ++j) {
        const T normalised = static_cast<T>(static_cast<float>(xr[j]) * inv);
        o[j] = static_cast<T>(static_cast<float>(weight[j]) * static_cast<float>(normalised));
      }
    }
  });
}

}  // namespace

at::Tensor RmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::ScalarType t = x.scalar_type();
  if (x.device().is_cpu() && weight.scalar_type() == t && weight.numel() == x.size(-1) &&
      (t == at::kFloat || t == at::kBFloat16)) {
    const at::Tensor xc = x.contiguous();
    const at::Tensor wc = weight.contiguous();
    at::Tensor out = at::empty_like(xc);
    const int64_t d = x.size(-1);
    const int64_t rows = d == 0 ? 0 : xc.numel() / d;
    if (t == at::kFloat) {
      NormRows(xc.data_ptr<float>(), wc.data_ptr<float>(), out.data_ptr<float>(), rows, d,
               static_cast<float>(eps));
    } else {
      NormRows(xc.data_ptr<at::BFloat16>(), wc.data_ptr<at::BFloat16>(), out.data_ptr<at::BFloat16>(), rows,
               d, static_cast<float>(eps));
    }
    return out;
  }
  at::Tensor xf = x.to(at::kFloat);
  at::Tensor inv = at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return weight * (xf * inv).to(x.scalar_type());
}

}  // namespace mineru::engine
