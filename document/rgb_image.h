// RgbImage: 8-bit RGB pixels, row-major, no padding (stride = 3 * width). Renders and crops use it; the
// VLM backend feeds it to the engine's preprocessing.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "document/block.h"

namespace mineru::document {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height * 3

  bool empty() const { return width <= 0 || height <= 0; }
  // The region of `box` (0-1000 frame of this image), clamped to the image; at least 1x1 when the image
  // is not empty.
  RgbImage Crop(BBox box) const;
};

// Baseline JPEG (libjpeg), quality 1..100.
Result<std::vector<uint8_t>> EncodeJpeg(const RgbImage& image, int quality = 90);

// PNG, 8-bit, fast zlib settings (the page images sent to remote model servers; lossless, so a server
// that decodes it sees exactly these pixels): greyscale when every pixel is grey (R = G = B), as on
// most text pages, else RGB. In rgb_image_png.cc.
Result<std::vector<uint8_t>> EncodePng(const RgbImage& image);

// "images/<hex sha256 of the bytes>.jpg".
std::string ImagePathForBytes(std::span<const uint8_t> bytes);

// Crops every image / table / equation block of `page` out of `page_render` (a render of that whole page),
// encodes it as JPEG, stores it in `doc.images` and sets the block's image_path. The VLM backend calls
// this with its 200-DPI render; the text backend with its own.
Status CropBlockImages(const RgbImage& page_render, PageResult& page, ParsedDocument& doc,
                       int jpeg_quality = 90);

}  // namespace mineru::document
