// Merging crop features into the image tokens of one page (MinerU 2.0, spatial_unpad with
// square_anyres_max_N) and splicing them into the prompt at the image token.
//
// Crops are [base view] + gw x gh tiles row-major. Base = the base view's patch rows. The tiles are laid
// out as one feature map (C, gh*side, gw*side); when t = sqrt(rows*cols / (N * side^2)) > 1.1 the map is
// shrunk bilinearly (align_corners false, no antialias) to (floor(rows / t), floor(cols / t)), computed in
// double precision. One image_newline column is appended to every row; rows are flattened row-major.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <span>

#include "common/result.h"

namespace mineru::engine {

struct TileGrid {
  int64_t gw = 1;  // tiles across
  int64_t gh = 1;  // tiles down
};

// The grid MinerU picks for a page of width x height pixels: candidates (tile*i, tile*j), i outer,
// j inner, 1..max_side; the largest effective area, then the least waste, then the first.
TileGrid SelectTileGrid(int64_t width, int64_t height, int64_t tile_px, int64_t max_side);

struct MergedShape {
  int64_t rows = 0;  // feature-map rows after the optional shrink
  int64_t cols = 0;
  bool shrunk = false;
  int64_t num_tokens = 0;  // base + rows * (cols + 1)
};
MergedShape MergedImageShape(TileGrid grid, int64_t patches_per_side, int64_t max_tiles);

// features: [1 + gw*gh, side*side, hidden] (projector output); newline: [hidden].
Result<at::Tensor> MergeImageFeatures(const at::Tensor& features, TileGrid grid, const at::Tensor& newline,
                                      int64_t patches_per_side, int64_t max_tiles);

// Replaces the single `image_token` in `tokens` by `image` rows: text_embeds [tokens, hidden] are the
// embeddings of every token (the image token's row is dropped). Errors when the image token is missing,
// repeated, or present without an image (or an image without the token).
Result<at::Tensor> SpliceImage(std::span<const int64_t> tokens, const at::Tensor& text_embeds,
                               int64_t image_token, const at::Tensor* image);

}  // namespace mineru::engine
