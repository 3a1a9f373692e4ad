// AVX2 helpers the CPU kernels share: widening eight bfloat16 (or half) values, rounding float32 to
// bfloat16 the way a cast does (to nearest, ties to even; NaN stays NaN), an 8 x 8 transpose, and e^x
// for x <= 0. Callers check the CPU (CpuHasAvx2) before running code built on them.
#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <immintrin.h>

#include <cstdint>

namespace mineru::engine::simd {

// True when this CPU has AVX2, FMA and F16C, which every helper here and the kernels built on them need.
inline bool CpuHasAvx2() {
  static const bool available =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  return available;
}

// Eight values as float32.
__attribute__((target("avx2"), always_inline)) inline __m256 Load8(const float* p) {
  return _mm256_loadu_ps(p);
}

__attribute__((target("avx2"), always_inline)) inline __m256 Load8(const uint16_t* bf16) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bf16));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

__attribute__((target("avx2"), always_inline)) inline __m256 Load8(const c10::BFloat16* p) {
  return Load8(reinterpret_cast<const uint16_t*>(p));
}

__attribute__((target("avx2,f16c"), always_inline)) inline __m256 Load8(const c10::Half* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// v rounded to bfloat16, as its 16-bit patterns in the low half of each 32-bit lane.
__attribute__((target("avx2"), always_inline)) inline __m256i Bf16Bits(__m256 v) {
  const __m256i bits = _mm256_castps_si256(v);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), odd)), 16);
  const __m256i quiet_nan = _mm256_srli_epi32(_mm256_or_si256(bits, _mm256_set1_epi32(0x00400000)), 16);
  const __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
  return _mm256_blendv_epi8(rounded, quiet_nan, _mm256_castps_si256(nan));
}

// v rounded to bfloat16 and widened back: the float32 value a bfloat16 cast leaves.
__attribute__((target("avx2"), always_inline)) inline __m256 RoundToBf16(__m256 v) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(Bf16Bits(v), 16));
}

__attribute__((target("avx2"), always_inline)) inline void Store8(float* p, __m256 v) {
  _mm256_storeu_ps(p, v);
}

__attribute__((target("avx2"), always_inline)) inline void Store8(c10::BFloat16* p, __m256 v) {
  const __m256i bits = Bf16Bits(v);  // lanes 0-3 | 4-7, each 32 bits
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(bits, bits), 0x08);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
}

// Rows become columns: r[i][j] -> r[j][i].
__attribute__((target("avx2"), always_inline)) inline void Transpose8x8(__m256 (&r)[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

// e^x for x <= 0; 0 below float's range. Cephes expf: x = n ln2 + r, e^r by a degree-6 polynomial, 2^n
// through the exponent bits; about 1 ulp.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 ExpNonPositive(__m256 x) {
  const __m256 underflow = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_LT_OQ);
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.3f));
  const __m256 n =
      _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
  x = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, x), x, x), _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_andnot_ps(underflow, _mm256_mul_ps(y, _mm256_castsi256_ps(e)));
}

}  // namespace mineru::engine::simd
