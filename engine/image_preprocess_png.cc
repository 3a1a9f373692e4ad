#include "engine/image_preprocess_png.h"

#include <png.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mineru::engine {

Result<ImageU8> DecodePngRgb(std::span<const uint8_t> png_bytes) {
  if (png_bytes.empty()) return InvalidArgument("PNG: no data");
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png_bytes.data(), png_bytes.size())) {
    return InvalidArgument(std::string("PNG: ") + image.message);
  }
  if (image.width == 0 || image.height == 0 || image.width > kMaxPngSide || image.height > kMaxPngSide ||
      uint64_t{image.width} * image.height > kMaxPngPixels) {
    png_image_free(&image);
    return InvalidArgument("PNG: size " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                           " is outside 1.." + std::to_string(kMaxPngSide) + " per side or above " +
                           std::to_string(kMaxPngPixels) + " pixels");
  }
  ImageU8 out{static_cast<int>(image.width), static_cast<int>(image.height), 3, {}};
  const size_t pixels = static_cast<size_t>(out.width) * static_cast<size_t>(out.height);
  // Without alpha, libpng writes RGB itself; with it, RGBA (8-bit, not premultiplied) whose alpha
  // byte is dropped below, as an RGB read would composite instead.
  const bool alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  image.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
  std::vector<uint8_t> rgba(alpha ? PNG_IMAGE_SIZE(image) : 0);
  out.pixels.resize(pixels * 3);
  if (!png_image_finish_read(&image, nullptr, alpha ? rgba.data() : out.pixels.data(), 0, nullptr)) {
    std::string message = image.message;
    png_image_free(&image);
    return InvalidArgument("PNG: " + message);
  }
  for (size_t i = 0; alpha && i < pixels; ++i) {
    out.pixels[3 * i + 0] = rgba[4 * i + 0];
    out.pixels[3 * i + 1] = rgba[4 * i + 1];
    out.pixels[3 * i + 2] = rgba[4 * i + 2];
  }
  return out;
}

Result<ImageU8> ReadPngRgb(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("image " + path.string() + " cannot be opened");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status(StatusCode::kIoError, "image " + path.string() + ": read failed");
  auto image = DecodePngRgb(bytes);
  if (!image.ok()) return image.status().WithContext(path.string());
  return image;
}

}  // namespace mineru::engine
