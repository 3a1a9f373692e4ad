#include "engine/image_merge.h"

#include <cmath>

#include "engine/anyres_grid.h"
#include "engine/torch_status.h"

namespace mineru::engine {

TileGrid SelectTileGrid(int64_t width, int64_t height, int64_t tile_px, int64_t max_side) {
  // One grid rule for the engine: the preprocessing's (anyres_grid.h). Sizes it refuses (zero or
  // negative) fall back to a single tile; callers validate image sizes before this.
  auto grid =
      SelectAnyresGrid(width, height, AnyresOptions{static_cast<int>(tile_px), static_cast<int>(max_side)});
  if (!grid.ok()) return TileGrid{};
  return TileGrid{grid->columns, grid->rows};
}

MergedShape MergedImageShape(TileGrid grid, int64_t side, int64_t max_tiles) {
  MergedShape m;
  const int64_t rows = grid.gh * side, cols = grid.gw * side;
  const double t = std::sqrt(static_cast<double>(rows) * static_cast<double>(cols) /
                             (static_cast<double>(max_tiles) * static_cast<double>(side * side)));
  m.rows = rows;
  m.cols = cols;
  if (t > 1.1) {
    m.rows = static_cast<int64_t>(std::floor(static_cast<double>(rows) / t));
    m.cols = static_cast<int64_t>(std::floor(static_cast<double>(cols) / t));
    m.shrunk = true;
  }
  m.num_tokens = side * side + m.rows * (m.cols + 1);
  return m;
}

Result<at::Tensor> MergeImageFeatures(const at::Tensor& features, TileGrid grid, const at::Tensor& newline,
                                      int64_t side, int64_t max_tiles) {
  const int64_t tiles = grid.gw * grid.gh;
  if (features.dim() != 3 || features.size(0) != 1 + tiles || features.size(1) != side * side) {
    return InvalidArgument("image features: expected [" + std::to_string(1 + tiles) + ", " +
                           std::to_string(side * side) + ", hidden] for a " + std::to_string(grid.gw) + "x" +
                           std::to_string(grid.gh) + " grid");
  }
  return CatchTorch("merging image features", [&]() -> Result<at::Tensor> {
    const int64_t c = features.size(2);
    at::Tensor base = features[0];
    // tiles [gh, gw, side, side, C] -> [C, gh, side, gw, side] -> [C, gh*side, gw*side]
    at::Tensor map = features.narrow(0, 1, tiles)
                         .reshape({grid.gh, grid.gw, side, side, c})
                         .permute({4, 0, 2, 1, 3})
                         .reshape({c, grid.gh * side, grid.gw * side});
    const MergedShape shape = MergedImageShape(grid, side, max_tiles);
    if (shape.shrunk) {
      map = at::upsample_bilinear2d(map.unsqueeze(0), {shape.rows, shape.cols}, /*align_corners=*/false,
                                    c10::nullopt, c10::nullopt)
                .squeeze(0);
    }
    at::Tensor nl = newline.to(map.scalar_type()).view({c, 1, 1}).expand({c, shape.rows, 1});
    at::Tensor with_newline = at::cat({map, nl}, 2);            // [C, rows, cols+1]
    at::Tensor flat = with_newline.flatten(1).transpose(0, 1);  // [rows*(cols+1), C]
    return at::cat({base, flat}, 0).contiguous();
  });
}

Result<at::Tensor> SpliceImage(std::span<const int64_t> tokens, const at::Tensor& text_embeds,
                               int64_t image_token, const at::Tensor* image) {
  int64_t where = -1;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] != image_token) continue;
    if (where >= 0)
      return InvalidArgument("the prompt holds the image token " + std::to_string(image_token) + " twice");
    where = static_cast<int64_t>(i);
  }
  if (!image) {
    if (where >= 0) return InvalidArgument("the prompt holds the image token but no image was given");
    return text_embeds;
  }
  if (where < 0)
    return InvalidArgument("an image was given but the prompt has no image token " +
                           std::to_string(image_token));
  return CatchTorch("splicing the image", [&]() -> Result<at::Tensor> {
    const int64_t n = static_cast<int64_t>(tokens.size());
    return at::cat({text_embeds.narrow(0, 0, where), image->to(text_embeds.scalar_type()),
                    text_embeds.narrow(0, where + 1, n - where - 1)},
                   0);
  });
}

}  // namespace mineru::engine
