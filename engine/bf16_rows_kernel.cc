#include "engine/bf16_rows_kernel.h"

#include <ATen/Parallel.h>
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace mineru::engine {
namespace {

constexpr int64_t kRowBlock = 4;   // x rows per register tile
constexpr int64_t kOutBlock = 3;   // weight rows (outputs) per register tile: 4 x 3 accumulators + 4
constexpr int64_t kOutGrain = 48;  // outputs per parallel task

float Bf16ToFloat(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

__attribute__((target("avx2,fma"))) inline __m256 Load8(const uint16_t* p) {  // eight bf16, widened
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
__attribute__((target("avx2,fma"))) inline __m256 Load8(const float* p) { return _mm256_loadu_ps(p); }
inline float Scalar(uint16_t v) { return Bf16ToFloat(v); }
inline float Scalar(float v) { return v; }

__attribute__((target("avx2,fma"))) inline float Sum8(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// R rows of x against C weight rows over all of K, the R x C sums in registers. W is the weight as
// stored (bf16, widened per load) or a row block already widened into float scratch.
template <int R, int C, typename W>
__attribute__((target("avx2,fma"))) void Tile(const float* x, int64_t ldx, const W* w, int64_t K, float* out,
                                              int64_t ldo) {
  __m256 acc[R][C];  // fully unrolled below, so the sums live in registers
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  const int64_t k8 = K & ~int64_t{7};
  for (int64_t k = 0; k < k8; k += 8) {
    __m256 wv[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) wv[c] = Load8(w + c * K + k);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_loadu_ps(x + r * ldx + k);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) acc[r][c] = _mm256_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      float s = Sum8(acc[r][c]);
      for (int64_t k = k8; k < K; ++k) s += x[r * ldx + k] * Scalar(w[c * K + k]);
      out[r * ldo + c] = s;
    }
  }
}

template <int R, typename W>
void RowsTile(const float* x, int64_t ldx, const W* w, int64_t K, int64_t outputs, float* out, int64_t ldo) {
  switch (outputs) {
    case 3:
      return Tile<R, 3>(x, ldx, w, K, out, ldo);
    case 2:
      return Tile<R, 2>(x, ldx, w, K, out, ldo);
    default:
      return Tile<R, 1>(x, ldx, w, K, out, ldo);
  }
}

// Every row of x against `outputs` weight rows.
template <typename W>
void AllRows(const float* x, int64_t M, const W* w, int64_t K, int64_t outputs, float* out, int64_t ldo) {
  for (int64_t m = 0; m < M; m += kRowBlock) {
    const float* xm = x + m * K;
    float* om = out + m * ldo;
    switch (std::min(kRowBlock, M - m)) {
      case 4:
        RowsTile<4>(xm, K, w, K, outputs, om, ldo);
        break;
      case 3:
        RowsTile<3>(xm, K, w, K, outputs, om, ldo);
        break;
      case 2:
        RowsTile<2>(xm, K, w, K, outputs, om, ldo);
        break;
      default:
        RowsTile<1>(xm, K, w, K, outputs, om, ldo);
    }
  }
}

__attribute__((target("avx2,fma"))) void WidenRows(const uint16_t* w, int64_t n, float* dst) {
  const int64_t n8 = n & ~int64_t{7};
  for (int64_t i = 0; i < n8; i += 8) _mm256_storeu_ps(dst + i, Load8(w + i));
  for (int64_t i = n8; i < n; ++i) dst[i] = Bf16ToFloat(w[i]);
}

}  // namespace

bool Bf16RowsKernelAvailable() {
  static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return available;
}

at::Tensor Bf16RowsLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  TORCH_CHECK(x.scalar_type() == at::kFloat && x.is_contiguous() && w.scalar_type() == at::kBFloat16 &&
                  w.is_contiguous() && w.size(1) == K,
              "Bf16RowsLinear: x float32 [M, K] and w bfloat16 [N, K], both contiguous");
  at::Tensor out = at::empty({M, N}, x.options());
  const float* xp = x.data_ptr<float>();
  const auto* wp = reinterpret_cast<const uint16_t*>(w.data_ptr<at::BFloat16>());
  float* op = out.data_ptr<float>();
  // Each task owns a run of outputs and reads their weight rows from memory once. With one row block
  // the rows are widened in registers; with several, each group of kOutBlock rows is widened once into
  // a small float buffer (L1/L2-resident) that every row block then reads.
  at::parallel_for(0, N, kOutGrain, [&](int64_t n0, int64_t n1) {
    std::vector<float> scratch(M > kRowBlock ? kOutBlock * K : 0);
    for (int64_t n = n0; n < n1; n += kOutBlock) {
      const int64_t outputs = std::min(kOutBlock, n1 - n);
      if (M <= kRowBlock) {
        AllRows(xp, M, wp + n * K, K, outputs, op + n, N);
      } else {
        WidenRows(wp + n * K, outputs * K, scratch.data());
        // The next group's weight rows start coming from memory while this one is multiplied.
        if (n + kOutBlock < n1) {
          const auto* next = reinterpret_cast<const char*>(wp + (n + kOutBlock) * K);
          const int64_t bytes = std::min(kOutBlock, n1 - n - kOutBlock) * K * 2;
          for (int64_t i = 0; i < bytes; i += 64) _mm_prefetch(next + i, _MM_HINT_T0);
        }
        AllRows(xp, M, scratch.data(), K, outputs, op + n, N);
      }
    }
  });
  if (bias.defined()) out.add_(bias.to(at::kFloat));
  return out;
}

}  // namespace mineru::engine
