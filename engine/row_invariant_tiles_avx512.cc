// AVX512 tiles of the row-invariant product (row_invariant_tiles.h): 16 lanes per sum, 4 x 4 sums in
// registers. Terms past K are read through masked loads as zero (a masked load reads nothing outside
// the mask, so a weight ending at an unmapped page is safe).
#include <immintrin.h>

#include <array>
#include <cstdint>

#include "engine/row_invariant_tiles.h"

namespace mineru::engine::tiles {
namespace {

#define MINERU_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

// The lanes added in a fixed tree: lane i + 8 onto lane i, then AVX2's order (PlainTile's Sum8). Done
// in scalar code: GCC 12's intrinsics for the halves of a register warn about an undefined operand.
MINERU_AVX512 inline float Sum16(__m512 v) {
  alignas(64) float l[16];
  _mm512_store_ps(l, v);
  float h[8];
  for (int i = 0; i < 8; ++i) h[i] = l[i] + l[i + 8];
  const float s0 = h[0] + h[4], s1 = h[1] + h[5], s2 = h[2] + h[6], s3 = h[3] + h[7];
  return (s0 + s2) + (s1 + s3);
}

template <int R, int C>
MINERU_AVX512 void StoreSums(__m512 (&acc)[R][C], float* sums) {
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) sums[r * kMaxTileCols + c] = Sum16(acc[r][c]);
}

// bf16 x bf16: each step takes 32 k, lane j the pair 2j, 2j + 1.
template <int R, int C>
MINERU_AVX512 void DotTile(const uint16_t* x, int64_t ldx, const uint16_t* w, int64_t K, float* sums) {
  __m512 acc[R][C];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  const auto step = [&](int64_t k, __mmask32 mask) MINERU_AVX512 {
    __m512bh wv[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) wv[c] = (__m512bh)_mm512_maskz_loadu_epi16(mask, w + c * K + k);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m512bh xv = (__m512bh)_mm512_maskz_loadu_epi16(mask, x + r * ldx + k);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_dpbf16_ps(acc[r][c], xv, wv[c]);
    }
  };
  const int64_t k32 = K & ~int64_t{31};
  for (int64_t k = 0; k < k32; k += 32) step(k, ~__mmask32{0});
  if (k32 < K) step(k32, static_cast<__mmask32>((uint64_t{1} << (K - k32)) - 1));
  StoreSums<R, C>(acc, sums);
}

MINERU_AVX512 inline __m512 Load16(const float* p, __mmask16 mask) { return _mm512_maskz_loadu_ps(mask, p); }

MINERU_AVX512 inline __m512 Load16(const uint16_t* p, __mmask16 mask) {
  // The maskz forms: GCC 12 warns about the undefined pass-through of the plain ones.
  const __m512i wide = _mm512_maskz_cvtepu16_epi32(mask, _mm256_maskz_loadu_epi16(mask, p));
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(mask, wide, 16));
}

// float32 x against W (float32, or bf16 widened as loaded): each step takes 16 k, lane j the k ≡ j.
template <typename W, int R, int C>
MINERU_AVX512 void FmaTile(const float* x, int64_t ldx, const W* w, int64_t K, float* sums) {
  __m512 acc[R][C];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  const auto step = [&](int64_t k, __mmask16 mask) MINERU_AVX512 {
    __m512 wv[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) wv[c] = Load16(w + c * K + k, mask);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m512 xv = Load16(x + r * ldx + k, mask);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  };
  const int64_t k16 = K & ~int64_t{15};
  for (int64_t k = 0; k < k16; k += 16) step(k, static_cast<__mmask16>(0xFFFF));
  if (k16 < K) step(k16, static_cast<__mmask16>((1u << (K - k16)) - 1));
  StoreSums<R, C>(acc, sums);
}

#undef MINERU_AVX512

// Tables of every (rows, cols) instantiation, indexed [rows - 1][cols - 1].
template <template <int, int> class F, int... I>
constexpr auto Table(std::integer_sequence<int, I...>) {
  return std::array<TileFn, sizeof...(I)>{F<I / kMaxTileCols + 1, I % kMaxTileCols + 1>::fn...};
}

template <int R, int C>
struct Dot {
  static void fn(const void* x, int64_t ldx, const void* w, int64_t K, int, int, float* sums) {
    DotTile<R, C>(static_cast<const uint16_t*>(x), ldx, static_cast<const uint16_t*>(w), K, sums);
  }
};

template <typename W>
struct Fma {
  template <int R, int C>
  struct Of {
    static void fn(const void* x, int64_t ldx, const void* w, int64_t K, int, int, float* sums) {
      FmaTile<W, R, C>(static_cast<const float*>(x), ldx, static_cast<const W*>(w), K, sums);
    }
  };
};

using Seq = std::make_integer_sequence<int, kTileRows * kMaxTileCols>;
constexpr auto kDot = Table<Dot>(Seq{});
constexpr auto kFmaBf16 = Table<Fma<uint16_t>::Of>(Seq{});
constexpr auto kFmaF32 = Table<Fma<float>::Of>(Seq{});

template <const std::array<TileFn, kTileRows * kMaxTileCols>& T>
void Dispatch(const void* x, int64_t ldx, const void* w, int64_t K, int rows, int cols, float* sums) {
  T[(rows - 1) * kMaxTileCols + cols - 1](x, ldx, w, K, rows, cols, sums);
}

}  // namespace

Tile Avx512Bf16DotTile() { return {&Dispatch<kDot>, 4}; }

Tile Avx512FmaTile(bool w_bf16) { return {w_bf16 ? &Dispatch<kFmaBf16> : &Dispatch<kFmaF32>, 4}; }

}  // namespace mineru::engine::tiles
