#include "engine/image_preprocess.h"

#include <string>

#include "engine/bicubic_resize.h"

namespace mineru::engine {
namespace {

// Writes the size x size crop of `image` at (x0, y0) as planar float values into `out` (3 planes).
void WriteCrop(const ImageU8View& image, int x0, int y0, int size,
               const std::array<std::array<float, 256>, 3>& tables, float* out) {
  const size_t plane = static_cast<size_t>(size) * size;
  for (int y = 0; y < size; ++y) {
    const uint8_t* row = image.Row(y0 + y) + static_cast<size_t>(x0) * 3;
    float* r = out + static_cast<size_t>(y) * size;
    float* g = r + plane;
    float* b = g + plane;
    for (int x = 0; x < size; ++x) {
      r[x] = tables[0][row[3 * x + 0]];
      g[x] = tables[1][row[3 * x + 1]];
      b[x] = tables[2][row[3 * x + 2]];
    }
  }
}

}  // namespace

std::array<std::array<float, 256>, 3> PixelValueTables(const ImagePreprocessOptions& options) {
  std::array<std::array<float, 256>, 3> tables{};
  for (int c = 0; c < 3; ++c) {
    for (int u = 0; u < 256; ++u) {
      const auto scaled = static_cast<float>(static_cast<double>(u) * options.rescale);
      tables[c][u] = (scaled - options.mean[c]) / options.std[c];
    }
  }
  return tables;
}

Result<AnyresViews> MakeAnyresViews(const ImageU8View& rgb, const ImagePreprocessOptions& options) {
  if (rgb.channels != 3) {
    return InvalidArgument("image preprocessing expects RGB (3 channels), got " +
                           std::to_string(rgb.channels));
  }
  MINERU_ASSIGN_OR_RETURN(AnyresGrid grid, SelectAnyresGrid(rgb.width, rgb.height, options.anyres));
  const int tile = options.anyres.tile_size;
  AnyresViews views;
  views.grid = grid;
  MINERU_ASSIGN_OR_RETURN(views.resized, ResizeBicubic(rgb, grid.columns * tile, grid.rows * tile));
  MINERU_ASSIGN_OR_RETURN(views.base, ResizeBicubic(rgb, tile, tile));
  return views;
}

Result<PreprocessedImage> PreprocessImage(const ImageU8View& rgb, const ImagePreprocessOptions& options) {
  for (int c = 0; c < 3; ++c) {
    if (!(options.std[c] != 0.0f) || !(options.rescale > 0.0)) {
      return InvalidArgument("image preprocessing: rescale must be positive and std non-zero");
    }
  }
  MINERU_ASSIGN_OR_RETURN(AnyresViews views, MakeAnyresViews(rgb, options));
  const auto tables = PixelValueTables(options);
  const int size = options.anyres.tile_size;
  PreprocessedImage out;
  out.grid = views.grid;
  out.crop_size = size;
  out.num_crops = 1 + views.grid.num_tiles();
  out.image_width = rgb.width;
  out.image_height = rgb.height;
  const size_t crop_values = size_t{3} * size * size;
  out.pixel_values.resize(crop_values * static_cast<size_t>(out.num_crops));
  WriteCrop(views.base.View(), 0, 0, size, tables, out.pixel_values.data());
  const ImageU8View resized = views.resized.View();
  for (int r = 0; r < views.grid.rows; ++r) {
    for (int q = 0; q < views.grid.columns; ++q) {
      const size_t crop = 1 + static_cast<size_t>(r) * views.grid.columns + q;
      WriteCrop(resized, q * size, r * size, size, tables, out.pixel_values.data() + crop * crop_values);
    }
  }
  return out;
}

}  // namespace mineru::engine
