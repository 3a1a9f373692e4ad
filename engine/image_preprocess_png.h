// Reading page images from PNG files (libpng) for the image preprocessing: `mineru-infer --image`
// and the tests. Any PNG (gray, palette, 16-bit, with alpha) becomes 8-bit RGB; alpha is dropped,
// not composited, as Pillow's convert("RGB") does.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

#include "common/result.h"
#include "engine/image_u8.h"

namespace mineru::engine {

// Larger images are refused (MinerU renders pages at most 3500 px on the long side; an A0 page at
// 200 DPI is 62 M pixels).
inline constexpr int kMaxPngSide = 1 << 15;
inline constexpr uint64_t kMaxPngPixels = uint64_t{1} << 27;

Result<ImageU8> DecodePngRgb(std::span<const uint8_t> png_bytes);
// Errors name the file.
Result<ImageU8> ReadPngRgb(const std::filesystem::path& path);

}  // namespace mineru::engine
