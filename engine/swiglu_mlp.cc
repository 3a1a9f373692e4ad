#include "engine/swiglu_mlp.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <type_traits>

#include "engine/dense_ops.h"
#include "engine/simd_avx2.h"

namespace mineru::engine {
namespace {

// out = silu(g) · u over n elements, rounding to T where the reference does (silu's result, then the
// product). silu(g) = g / (1 + e^-g), written with e = e^-|g| <= 1 so the exponential never overflows:
// g / (1 + e) for g >= 0, g·e / (1 + e) below.
template <typename T>
__attribute__((target("avx2,fma"))) void SiluTimes(const T* g, const T* u, T* out, int64_t n) {
  const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 gv = simd::Load8(g + i);
    const __m256 e = simd::ExpNonPositive(_mm256_or_ps(gv, sign));  // e^-|g|
    const __m256 positive = _mm256_cmp_ps(gv, _mm256_setzero_ps(), _CMP_GE_OQ);
    const __m256 numerator = _mm256_blendv_ps(_mm256_mul_ps(gv, e), gv, positive);
    __m256 silu = _mm256_div_ps(numerator, _mm256_add_ps(one, e));
    if constexpr (!std::is_same_v<T, float>) silu = simd::RoundToBf16(silu);
    simd::Store8(out + i, _mm256_mul_ps(silu, simd::Load8(u + i)));
  }
  for (; i < n; ++i) {
    const float gf = static_cast<float>(g[i]);
    const float silu = static_cast<float>(static_cast<T>(gf / (1.0f + std::exp(-gf))));
    out[i] = static_cast<T>(silu * static_cast<float>(u[i]));
  }
}

// The rows' silu and product in scalar code (a CPU without AVX2), as SiluTimes's tail computes them.
template <typename T>
void SiluTimesPlain(const T* g, const T* u, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float gf = static_cast<float>(g[i]);
    const float silu = static_cast<float>(static_cast<T>(gf / (1.0f + std::exp(-gf))));
    out[i] = static_cast<T>(silu * static_cast<float>(u[i]));
  }
}

// silu(gate) · up. On the CPU row by row: whether an element takes the vector or the scalar code
// depends on its column alone, never on how many rows the step holds or how the threads split them.
at::Tensor GatedActivation(const at::Tensor& gate, const at::Tensor& up) {
  const at::ScalarType t = gate.scalar_type();
  if (!gate.device().is_cpu() || up.scalar_type() != t || up.sizes() != gate.sizes() ||
      (t != at::kFloat && t != at::kBFloat16) || gate.dim() == 0) {
    return at::silu(gate).mul_(up);
  }
  const at::Tensor g = gate.contiguous(), u = up.contiguous();
  at::Tensor out = at::empty_like(g);
  const int64_t n = g.size(-1);
  const int64_t rows = n == 0 ? 0 : g.numel() / n;
  const bool avx2 = simd::CpuHasAvx2();
  const auto run = [&](auto* type, int64_t r0, int64_t r1) {
    using T = std::remove_pointer_t<decltype(type)>;
    const T* gp = g.data_ptr<T>();
    const T* up_ = u.data_ptr<T>();
    T* op = out.data_ptr<T>();
    for (int64_t r = r0; r < r1; ++r) {
      if (avx2) {
        SiluTimes(gp + r * n, up_ + r * n, op + r * n, n);
      } else {
        SiluTimesPlain(gp + r * n, up_ + r * n, op + r * n, n);
      }
    }
  };
  at::parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)),
                   [&](int64_t r0, int64_t r1) {
                     if (t == at::kFloat) {
                       run(static_cast<float*>(nullptr), r0, r1);
                     } else {
                       run(static_cast<at::BFloat16*>(nullptr), r0, r1);
                     }
                   });
  return out;
}

}  // namespace

at::Tensor SwigluMlp(const at::Tensor& x, const at::Tensor& gate_w, const at::Tensor& up_w,
                     const at::Tensor& down_w) {
  const at::Tensor weights[] = {gate_w, up_w};
  const std::vector<at::Tensor> gate_up = Linears(x, weights);
  return Linear(GatedActivation(gate_up[0], gate_up[1]), down_w);
}

}  // namespace mineru::engine
