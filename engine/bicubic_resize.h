// Bicubic resize that reproduces Pillow's Image.resize(size, BICUBIC) bit for bit (the filter
// MinerU's image processor uses), on 8-bit images with any number of channels.
//
// The algorithm (Pillow's resampling, described in ../shared/golden/README.md): separable, a
// horizontal pass then a vertical pass, each skipped when that dimension keeps its size. For every
// output pixel the source window is centred at (x + 0.5) * scale; the cubic kernel (a = -0.5,
// support 2) is stretched by the scale when shrinking (antialiasing), its weights are normalised to
// sum 1 and turned into 22-bit fixed point; each pass rounds (adds half) and clips to 0..255.
#pragma once

#include "common/result.h"
#include "engine/image_u8.h"

namespace mineru::engine {

// `in` resized to out_width x out_height (aspect ratio not kept). Errors on empty or oversized
// images and sizes.
Result<ImageU8> ResizeBicubic(const ImageU8View& in, int out_width, int out_height);

}  // namespace mineru::engine
