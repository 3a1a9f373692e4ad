#include "engine/bicubic_resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace mineru::engine {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;
constexpr int kMaxSide = 1 << 16;

double CubicKernel(double x) {
  constexpr double a = -0.5;
  if (x < 0.0) x = -x;
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}

// Fixed-point weights of each output position along one axis.
struct Coefficients {
  int taps = 0;                  // weights stored per output position
  std::vector<int> first;        // first source index per output position
  std::vector<int> count;        // number of source indices used
  std::vector<int32_t> weights;  // [out_size * taps]
};

Coefficients ComputeCoefficients(int in_size, int out_size) {
  constexpr double kSupport = 2.0;
  const double scale = static_cast<double>(static_cast<float>(in_size) - 0.0f) / out_size;
  const double filter_scale = std::max(scale, 1.0);
  const double support = kSupport * filter_scale;
  Coefficients c;
  c.taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.first.resize(static_cast<size_t>(out_size));
  c.count.resize(static_cast<size_t>(out_size));
  c.weights.assign(static_cast<size_t>(out_size) * static_cast<size_t>(c.taps), 0);
  std::vector<double> w(static_cast<size_t>(c.taps));
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double inv = 1.0 / filter_scale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double total = 0.0;
    for (int x = 0; x < xmax; ++x) {
      w[x] = CubicKernel((x + xmin - center + 0.5) * inv);
      total += w[x];
    }
    int32_t* k = &c.weights[static_cast<size_t>(xx) * static_cast<size_t>(c.taps)];
    for (int x = 0; x < xmax; ++x) {
      const double v = total != 0.0 ? w[x] / total : w[x];
      k[x] = v < 0 ? static_cast<int32_t>(-0.5 + v * (1 << kPrecisionBits))
                   : static_cast<int32_t>(0.5 + v * (1 << kPrecisionBits));
    }
    c.first[xx] = xmin;
    c.count[xx] = xmax;
  }
  return c;
}

uint8_t Clip8(int32_t v) {
  const int32_t shifted = v >> kPrecisionBits;
  return static_cast<uint8_t>(std::clamp(shifted, 0, 255));
}

// Resamples rows [row_begin, row_end) of `in` horizontally into `out` (width = coefficient count).
void ResampleHorizontal(const ImageU8View& in, int row_begin, int row_end, const Coefficients& c,
                        ImageU8* out) {
  const int ch = in.channels;
  const int out_w = static_cast<int>(c.first.size());
  for (int y = row_begin; y < row_end; ++y) {
    const uint8_t* src = in.Row(y);
    uint8_t* dst = &out->pixels[static_cast<size_t>(y - row_begin) * static_cast<size_t>(out_w) * ch];
    for (int xx = 0; xx < out_w; ++xx) {
      const int32_t* k = &c.weights[static_cast<size_t>(xx) * static_cast<size_t>(c.taps)];
      const uint8_t* s = src + static_cast<size_t>(c.first[xx]) * ch;
      for (int b = 0; b < ch; ++b) {
        int32_t acc = 1 << (kPrecisionBits - 1);
        for (int x = 0; x < c.count[xx]; ++x) acc += static_cast<int32_t>(s[x * ch + b]) * k[x];
        dst[xx * ch + b] = Clip8(acc);
      }
    }
  }
}

// Resamples `in` vertically; source row indices are offset by -row_offset.
void ResampleVertical(const ImageU8View& in, int row_offset, const Coefficients& c, ImageU8* out) {
  const size_t row_values = static_cast<size_t>(in.width) * in.channels;
  std::vector<int32_t> acc(row_values);
  for (int yy = 0; yy < out->height; ++yy) {
    const int32_t* k = &c.weights[static_cast<size_t>(yy) * static_cast<size_t>(c.taps)];
    std::fill(acc.begin(), acc.end(), 1 << (kPrecisionBits - 1));
    for (int y = 0; y < c.count[yy]; ++y) {
      const uint8_t* src = in.Row(c.first[yy] + y - row_offset);
      const int32_t weight = k[y];
      for (size_t i = 0; i < row_values; ++i) acc[i] += static_cast<int32_t>(src[i]) * weight;
    }
    uint8_t* dst = &out->pixels[static_cast<size_t>(yy) * row_values];
    for (size_t i = 0; i < row_values; ++i) dst[i] = Clip8(acc[i]);
  }
}

}  // namespace

Result<ImageU8> ResizeBicubic(const ImageU8View& in, int out_width, int out_height) {
  if (in.data == nullptr || in.width <= 0 || in.height <= 0 || in.channels <= 0 || in.channels > 4) {
    return InvalidArgument("resize: the source image is empty or has an unsupported channel count");
  }
  if (in.row_stride_bytes < static_cast<size_t>(in.width) * in.channels) {
    return InvalidArgument("resize: row stride " + std::to_string(in.row_stride_bytes) +
                           " is shorter than a row");
  }
  if (out_width <= 0 || out_height <= 0 || out_width > kMaxSide || out_height > kMaxSide ||
      in.width > kMaxSide || in.height > kMaxSide) {
    return InvalidArgument("resize: sizes must be in 1.." + std::to_string(kMaxSide) + " (asked " +
                           std::to_string(in.width) + "x" + std::to_string(in.height) + " -> " +
                           std::to_string(out_width) + "x" + std::to_string(out_height) + ")");
  }
  const int ch = in.channels;
  ImageU8 out{out_width, out_height, ch, {}};
  out.pixels.resize(static_cast<size_t>(out_width) * out_height * ch);
  const bool horizontal = out_width != in.width;
  const bool vertical = out_height != in.height;
  if (!horizontal && !vertical) {
    const size_t row = static_cast<size_t>(in.width) * ch;
    for (int y = 0; y < in.height; ++y) std::memcpy(&out.pixels[y * row], in.Row(y), row);
    return out;
  }
  const Coefficients vert = ComputeCoefficients(in.height, out_height);
  if (!horizontal) {
    ResampleVertical(in, 0, vert, &out);
    return out;
  }
  const Coefficients horiz = ComputeCoefficients(in.width, out_width);
  // Only the source rows the vertical pass reads go through the horizontal pass.
  const int row_begin = vertical ? vert.first.front() : 0;
  const int row_end = vertical ? vert.first.back() + vert.count.back() : in.height;
  if (!vertical) {
    ResampleHorizontal(in, 0, in.height, horiz, &out);
    return out;
  }
  ImageU8 temp{out_width, row_end - row_begin, ch, {}};
  temp.pixels.resize(static_cast<size_t>(temp.width) * temp.height * ch);
  ResampleHorizontal(in, row_begin, row_end, horiz, &temp);
  ResampleVertical(temp.View(), row_begin, vert, &out);
  return out;
}

}  // namespace mineru::engine
