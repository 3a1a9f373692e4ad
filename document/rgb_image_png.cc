// EncodePng (rgb_image.h) with libpng, into memory.
#include <png.h>

#include <csetjmp>
#include <cstdio>

#include "document/rgb_image.h"

namespace mineru::document {
namespace {

struct PngSink {
  std::vector<uint8_t>* out;
  char error[200] = {};
};

void WriteBytes(png_structp png, png_bytep data, png_size_t length) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  sink->out->insert(sink->out->end(), data, data + length);
}

void Flush(png_structp) {}

[[noreturn]] void OnError(png_structp png, png_const_charp message) {
  auto* sink = static_cast<PngSink*>(png_get_error_ptr(png));
  std::snprintf(sink->error, sizeof sink->error, "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}

// True when every pixel is a shade of grey (R = G = B), as on most rendered text pages: such an image
// is written as 8-bit greyscale, the same pixels with a third of the bytes to filter and compress
// (and to inflate on the reading side, where a PNG reader gives R = G = B back).
bool IsGrey(const RgbImage& image) {
  const uint8_t* p = image.pixels.data();
  const uint8_t* end = p + image.pixels.size();
  for (; p != end; p += 3) {
    if ((p[0] ^ p[1]) | (p[0] ^ p[2])) return false;
  }
  return true;
}

// Separate from EncodePng so that no object with a destructor lives across the setjmp; `row` holds
// one greyscale row when `grey`.
bool Compress(const RgbImage& image, bool grey, uint8_t* row, PngSink* sink) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, OnError, OnWarning);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
    return false;
  }
  png_set_write_fn(png, sink, WriteBytes, Flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               grey ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  // Speed over size: no filter and zlib's fastest level. Rendered pages are mostly flat runs of one
  // colour, which deflate finds as they are: on the docling pages the SUB filter gave larger files
  // (297 KB against 270 KB a page as RGB) and took longer.
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_set_compression_level(png, 1);
  png_write_info(png, info);
  const size_t stride = static_cast<size_t>(image.width) * 3;
  for (int y = 0; y < image.height; ++y) {
    const uint8_t* rgb = image.pixels.data() + stride * static_cast<size_t>(y);
    if (grey) {
      for (int x = 0; x < image.width; ++x) row[x] = rgb[3 * x];
    }
    png_write_row(png, grey ? row : const_cast<png_bytep>(rgb));
  }
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

Result<std::vector<uint8_t>> EncodePng(const RgbImage& image) {
  if (image.empty()) return InvalidArgument("cannot encode an empty image as PNG");
  if (image.pixels.size() != static_cast<size_t>(image.width) * image.height * 3) {
    return InvalidArgument("RGB image has " + std::to_string(image.pixels.size()) + " bytes for " +
                           std::to_string(image.width) + "x" + std::to_string(image.height));
  }
  const bool grey = IsGrey(image);
  std::vector<uint8_t> row(grey ? static_cast<size_t>(image.width) : 0);
  std::vector<uint8_t> out;
  PngSink sink{&out};
  if (!Compress(image, grey, row.data(), &sink))
    return Internal(std::string("PNG encoding failed: ") + sink.error);
  return out;
}

}  // namespace mineru::document
