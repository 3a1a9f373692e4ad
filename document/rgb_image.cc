#include "document/rgb_image.h"

// clang-format off
#include <cstdio>  // jpeglib.h needs FILE
#include <jpeglib.h>
// clang-format on
#include <mupdf/fitz.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>

namespace mineru::document {
namespace {

struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void JpegErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}
void JpegSilent(j_common_ptr, int) {}

// libjpeg reports errors by longjmp; nothing here is modified between setjmp and the jump.
bool CompressJpeg(const RgbImage& image, int quality, unsigned char** buffer,
                  unsigned long* size,  // NOLINT: libjpeg's type
                  std::string* error) {
  jpeg_compress_struct cinfo{};
  JpegError err{};
  cinfo.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = JpegErrorExit;
  err.mgr.emit_message = JpegSilent;
  if (setjmp(err.jump) != 0) {
    jpeg_destroy_compress(&cinfo);
    *error = err.message;
    return false;
  }
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, buffer, size);
  cinfo.image_width = static_cast<JDIMENSION>(image.width);
  cinfo.image_height = static_cast<JDIMENSION>(image.height);
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  const size_t row = static_cast<size_t>(image.width) * 3;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW line = const_cast<JSAMPROW>(image.pixels.data() + row * cinfo.next_scanline);
    jpeg_write_scanlines(&cinfo, &line, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

}  // namespace

RgbImage RgbImage::Crop(BBox box) const {
  RgbImage out;
  if (empty()) return out;
  box = NormalizeBBox(box);
  int x0 = std::clamp(static_cast<int>(static_cast<int64_t>(box.x0) * width / 1000), 0, width - 1);
  int y0 = std::clamp(static_cast<int>(static_cast<int64_t>(box.y0) * height / 1000), 0, height - 1);
  int x1 = std::clamp(static_cast<int>((static_cast<int64_t>(box.x1) * width + 999) / 1000), x0 + 1, width);
  int y1 = std::clamp(static_cast<int>((static_cast<int64_t>(box.y1) * height + 999) / 1000), y0 + 1, height);
  out.width = x1 - x0;
  out.height = y1 - y0;
  size_t row = static_cast<size_t>(out.width) * 3;
  out.pixels.resize(row * static_cast<size_t>(out.height));
  for (int y = 0; y < out.height; ++y) {
    const uint8_t* src = pixels.data() + (static_cast<size_t>(y0 + y) * width + x0) * 3;
    std::memcpy(out.pixels.data() + row * static_cast<size_t>(y), src, row);
  }
  return out;
}

Result<std::vector<uint8_t>> EncodeJpeg(const RgbImage& image, int quality) {
  if (image.empty()) return InvalidArgument("cannot encode an empty image as JPEG");
  if (image.pixels.size() != static_cast<size_t>(image.width) * image.height * 3) {
    return InvalidArgument("RGB image has " + std::to_string(image.pixels.size()) + " bytes for " +
                           std::to_string(image.width) + "x" + std::to_string(image.height));
  }
  if (image.width > 65500 || image.height > 65500) return InvalidArgument("image too large for JPEG");
  unsigned char* buffer = nullptr;
  unsigned long size = 0;  // NOLINT: libjpeg's type
  std::string error;
  if (!CompressJpeg(image, std::clamp(quality, 1, 100), &buffer, &size, &error)) {
    std::free(buffer);
    return Internal("JPEG encoding failed: " + error);
  }
  std::vector<uint8_t> out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

std::string ImagePathForBytes(std::span<const uint8_t> bytes) {
  fz_sha256 state;
  fz_sha256_init(&state);
  fz_sha256_update(&state, bytes.data(), bytes.size());
  unsigned char digest[32];
  fz_sha256_final(&state, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string path = "images/";
  for (unsigned char c : digest) {
    path.push_back(kHex[c >> 4]);
    path.push_back(kHex[c & 15]);
  }
  path += ".jpg";
  return path;
}

Status CropBlockImages(const RgbImage& page_render, PageResult& page, ParsedDocument& doc, int jpeg_quality) {
  for (Block& block : page.blocks) {
    if (!BlockTypeHasCrop(block.type) || block.bbox.empty()) continue;
    MINERU_ASSIGN_OR_RETURN(std::vector<uint8_t> jpeg,
                            EncodeJpeg(page_render.Crop(block.bbox), jpeg_quality));
    block.image_path = ImagePathForBytes(jpeg);
    doc.images.emplace(block.image_path, std::move(jpeg));
  }
  return Status::Ok();
}

}  // namespace mineru::document
