#include "document/ocr_image.h"

#include <leptonica/allheaders.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace mineru::document {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr float kMinSkewConfidence = 3.0f;  // Leptonica's own threshold for a measured skew
constexpr float kMinSkewDegrees = 0.1f;

// Leptonica prints its warnings to stderr; a daemon has no terminal for them.
void DiscardMessage(const char* /*message*/) {}
void QuietLeptonica() {
  static std::once_flag once;
  std::call_once(once, [] { leptSetStderrHandler(&DiscardMessage); });
}

}  // namespace

void PixDeleter::operator()(Pix* pix) const { pixDestroy(&pix); }

PixPtr GreyPix(const RgbImage& image, int dpi) {
  QuietLeptonica();
  PixPtr pix(pixCreate(image.width, image.height, 8));
  if (!pix) return pix;
  pixSetResolution(pix.get(), dpi, dpi);
  l_uint32* data = pixGetData(pix.get());
  int wpl = pixGetWpl(pix.get());
  const uint8_t* p = image.pixels.data();
  for (int y = 0; y < image.height; ++y) {
    l_uint32* row = data + static_cast<ptrdiff_t>(y) * wpl;
    for (int x = 0; x < image.width; ++x, p += 3) {
      int grey = (299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000;
      SET_DATA_BYTE(row, x, grey);
    }
  }
  return pix;
}

PixPtr RotateQuads(PixPtr pix, int quads) {
  quads = ((quads % 4) + 4) % 4;
  if (quads == 0 || !pix) return pix;
  return PixPtr(pixRotateOrth(pix.get(), quads));
}

double Deskew(PixPtr& pix) {
  PixPtr binary(pixConvertTo1(pix.get(), 160));
  if (!binary) return 0;
  l_float32 angle = 0, confidence = 0;
  if (pixFindSkew(binary.get(), &angle, &confidence) != 0) return 0;
  if (confidence < kMinSkewConfidence || std::fabs(angle) < kMinSkewDegrees) return 0;
  double rad = angle * kPi / 180.0;
  PixPtr level(pixRotate(pix.get(), static_cast<l_float32>(rad), L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, 0, 0));
  if (!level) return 0;
  pix = std::move(level);
  return rad;
}

BBox OcrFrame::ToRenderFrame(int left, int top, int right, int bottom) const {
  bool turned = quads % 2 == 1;
  double w = turned ? render_height : render_width;  // the upright image
  double h = turned ? render_width : render_height;
  double cx = w / 2, cy = h / 2;
  double c = std::cos(skew_rad), s = std::sin(skew_rad);
  double min_x = 1e300, min_y = 1e300, max_x = -1e300, max_y = -1e300;
  const double xs[2] = {static_cast<double>(left), static_cast<double>(right)};
  const double ys[2] = {static_cast<double>(top), static_cast<double>(bottom)};
  for (double u0 : xs) {
    for (double v0 : ys) {
      // Undo the clockwise skew rotation about the centre.
      double du = u0 - cx, dv = v0 - cy;
      double u = cx + du * c + dv * s;
      double v = cy - du * s + dv * c;
      // Undo the quarter turns: a clockwise turn maps (x, y) of a W x H image to (H - y, x).
      double x = u, y = v;
      switch (quads % 4) {
        case 1:
          x = v, y = render_height - u;
          break;
        case 2:
          x = render_width - u, y = render_height - v;
          break;
        case 3:
          x = render_width - v, y = u;
          break;
        default:
          break;
      }
      min_x = std::min(min_x, x), max_x = std::max(max_x, x);
      min_y = std::min(min_y, y), max_y = std::max(max_y, y);
    }
  }
  auto fx = [&](double x) { return static_cast<int>(std::lround(x * 1000.0 / render_width)); };
  auto fy = [&](double y) { return static_cast<int>(std::lround(y * 1000.0 / render_height)); };
  return NormalizeBBox({fx(min_x), fy(min_y), fx(max_x), fy(max_y)});
}

}  // namespace mineru::document
