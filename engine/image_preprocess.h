// MinerU 2.0 page-image preprocessing (anyres, max 9 merged tiles): page RGB -> grid choice ->
// bicubic resize to the grid's resolution, cut into tiles row-major -> base view (the whole page at
// tile size) -> crops [base, tiles...] -> float CHW pixel values normalised as the model expects.
//
// Plain C++ (no libtorch): the engine turns `pixel_values` into a tensor [num_crops, 3, S, S].
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/result.h"
#include "engine/anyres_grid.h"
#include "engine/image_u8.h"

namespace mineru::engine {

struct ImagePreprocessOptions {
  AnyresOptions anyres;  // tile size (= crop size) and grid limit
  // Pixel value = ((float)(u * rescale) - mean[c]) / std[c], in float32 (the image processor's
  // rescale then normalize). MinerU 2.0: rescale 1/255, mean = std = 0.5.
  double rescale = 1.0 / 255.0;
  std::array<float, 3> mean = {0.5f, 0.5f, 0.5f};
  std::array<float, 3> std = {0.5f, 0.5f, 0.5f};
};

// The resized images that the crops are cut from.
struct AnyresViews {
  AnyresGrid grid;
  ImageU8 resized;  // grid.columns * tile x grid.rows * tile
  ImageU8 base;     // tile x tile
};

struct PreprocessedImage {
  AnyresGrid grid;
  int crop_size = 0;
  int num_crops = 0;    // 1 + grid.num_tiles()
  int image_width = 0;  // the page size MinerU passes as image_sizes (width, height)
  int image_height = 0;
  std::vector<float> pixel_values;  // [num_crops, 3, crop_size, crop_size], base view first
};

// Grid choice and the two resizes. `rgb` must have 3 channels.
Result<AnyresViews> MakeAnyresViews(const ImageU8View& rgb, const ImagePreprocessOptions& options = {});

// The float value of each 8-bit sample, per channel.
std::array<std::array<float, 256>, 3> PixelValueTables(const ImagePreprocessOptions& options);

// The whole pipeline.
Result<PreprocessedImage> PreprocessImage(const ImageU8View& rgb, const ImagePreprocessOptions& options = {});

}  // namespace mineru::engine
