// AVX2 and plain C++ tiles of the row-invariant product (row_invariant_tiles.h): 8 lanes per sum, lane
// j taking the terms k ≡ j (mod 8) by fused multiply-adds, terms past K as zero, the lanes added as
// ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)). The plain tile does exactly that in scalar code,
// so the two give the same bits. AVX2 holds 4 x 3 sums in its 16 registers.
#include <immintrin.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/row_invariant_tiles.h"

namespace mineru::engine::tiles {
namespace {

inline float Widen(float v) { return v; }

inline float Widen(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline float Sum8(const float (&l)[8]) {
  const float s0 = l[0] + l[4], s1 = l[1] + l[5], s2 = l[2] + l[6], s3 = l[3] + l[7];
  return (s0 + s2) + (s1 + s3);
}

#define MINERU_AVX2 __attribute__((target("avx2,fma")))

MINERU_AVX2 inline __m256 Load8(const float* p) { return _mm256_loadu_ps(p); }

MINERU_AVX2 inline __m256 Load8(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

// The last n < 8 values from p, zero after: through a small copy, so nothing past p[n - 1] is read.
template <typename T>
MINERU_AVX2 inline __m256 LoadTail(const T* p, int64_t n) {
  alignas(32) float v[8] = {};
  for (int64_t i = 0; i < n; ++i) v[i] = Widen(p[i]);
  return _mm256_load_ps(v);
}

MINERU_AVX2 inline float Sum8(__m256 v) {
  alignas(32) float l[8];
  _mm256_store_ps(l, v);
  return Sum8(l);
}

template <typename W, int R, int C>
MINERU_AVX2 void Avx2Tile(const float* x, int64_t ldx, const W* w, int64_t K, float* sums) {
  __m256 acc[R][C];
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
  if (k8 < K) {
    __m256 wv[C];
    for (int c = 0; c < C; ++c) wv[c] = LoadTail(w + c * K + k8, K - k8);
    for (int r = 0; r < R; ++r) {
      const __m256 xv = LoadTail(x + r * ldx + k8, K - k8);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm256_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) sums[r * kMaxTileCols + c] = Sum8(acc[r][c]);
}

#undef MINERU_AVX2

template <template <int, int> class F, int... I>
constexpr auto Table(std::integer_sequence<int, I...>) {
  return std::array<TileFn, sizeof...(I)>{F<I / 3 + 1, I % 3 + 1>::fn...};
}

template <typename W>
struct Avx2 {
  template <int R, int C>
  struct Of {
    static void fn(const void* x, int64_t ldx, const void* w, int64_t K, int, int, float* sums) {
      Avx2Tile<W, R, C>(static_cast<const float*>(x), ldx, static_cast<const W*>(w), K, sums);
    }
  };
};

using Seq = std::make_integer_sequence<int, kTileRows * 3>;
constexpr auto kAvx2Bf16 = Table<Avx2<uint16_t>::Of>(Seq{});
constexpr auto kAvx2F32 = Table<Avx2<float>::Of>(Seq{});

template <const std::array<TileFn, kTileRows * 3>& T>
void Dispatch(const void* x, int64_t ldx, const void* w, int64_t K, int rows, int cols, float* sums) {
  T[(rows - 1) * 3 + cols - 1](x, ldx, w, K, rows, cols, sums);
}

// One sum at a time, its 8 lanes in an array; std::fma rounds once, as the instruction does.
template <typename W>
void PlainTileOf(const void* xv, int64_t ldx, const void* wv, int64_t K, int rows, int cols, float* sums) {
  const float* x = static_cast<const float*>(xv);
  const W* w = static_cast<const W*>(wv);
  const int64_t padded = (K + 7) / 8 * 8;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      float lanes[8] = {};
      for (int64_t k = 0; k < padded; ++k) {
        const float a = k < K ? x[r * ldx + k] : 0.0f;
        const float b = k < K ? Widen(w[c * K + k]) : 0.0f;
        lanes[k % 8] = std::fma(a, b, lanes[k % 8]);
      }
      sums[r * kMaxTileCols + c] = Sum8(lanes);
    }
  }
}

}  // namespace

Tile Avx2FmaTile(bool w_bf16) { return {w_bf16 ? &Dispatch<kAvx2Bf16> : &Dispatch<kAvx2F32>, 3}; }

Tile PlainTile(bool w_bf16) { return {w_bf16 ? &PlainTileOf<uint16_t> : &PlainTileOf<float>, 4}; }

}  // namespace mineru::engine::tiles
