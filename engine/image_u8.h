// 8-bit interleaved images (HWC) as the image preprocessing passes them around.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mineru::engine {

// A read-only view of rows of `width * channels` bytes, `row_stride_bytes` apart.
struct ImageU8View {
  const uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
  size_t row_stride_bytes = 0;
  const uint8_t* Row(int y) const { return data + static_cast<size_t>(y) * row_stride_bytes; }
};

// An owned, tightly packed image.
struct ImageU8 {
  int width = 0;
  int height = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;  // height * width * channels

  ImageU8View View() const {
    return {pixels.data(), width, height, channels,
            static_cast<size_t>(width) * static_cast<size_t>(channels)};
  }
};

}  // namespace mineru::engine
