// The register tiles of row_invariant_linear.h, one set per instruction set: each computes the sums of
// up to kTileRows rows of x against up to kTileCols weight rows over all of K, every sum in the order
// row_invariant_linear.h describes, whatever the tile's size.
#pragma once

#include <cstdint>

namespace mineru::engine::tiles {

inline constexpr int kTileRows = 4;
inline constexpr int kMaxTileCols = 4;

// sums[r * kMaxTileCols + c] = Σk x[r·ldx + k] · w[c·K + k] for r < rows <= kTileRows, c < cols <=
// the tile's `cols`.
using TileFn = void (*)(const void* x, int64_t ldx, const void* w, int64_t K, int rows, int cols,
                        float* sums);

struct Tile {
  TileFn fn;
  int cols;  // the most weight rows per call (what the registers hold)
};

// x bfloat16, w bfloat16 (AVX512-BF16 dot products, 16 lanes of pairs).
Tile Avx512Bf16DotTile();
// x float32; w bfloat16 or float32: 16 lanes (AVX512F), 8 lanes (AVX2 + FMA), 8 lanes in plain C++.
Tile Avx512FmaTile(bool w_bf16);
Tile Avx2FmaTile(bool w_bf16);
Tile PlainTile(bool w_bf16);

}  // namespace mineru::engine::tiles
