// The image side of OCR (private to document/): a page render as the grey Leptonica image Tesseract
// reads, turned upright by quarter turns and deskewed, and the map from that image's pixels back to the
// 0-1000 frame of the render.
#pragma once

#include <memory>

#include "document/block.h"
#include "document/rgb_image.h"

struct Pix;

namespace mineru::document {

struct PixDeleter {
  void operator()(Pix* pix) const;
};
using PixPtr = std::unique_ptr<Pix, PixDeleter>;

// 8-bit grey (ITU-R 601 luma) copy of `image`, its resolution set to `dpi`.
PixPtr GreyPix(const RgbImage& image, int dpi);

// Where the pixels Tesseract reads came from: the render turned `quads` quarter turns clockwise, then
// rotated `skew_rad` clockwise about its centre (same size, corners clipped).
struct OcrFrame {
  int render_width = 0;
  int render_height = 0;
  int quads = 0;
  double skew_rad = 0;

  // A box of the upright image (pixels; left, top, right, bottom) -> the 0-1000 frame of the render.
  BBox ToRenderFrame(int left, int top, int right, int bottom) const;
};

// Turns `pix` `quads` quarter turns clockwise (a new image; `pix` when quads is 0 mod 4).
PixPtr RotateQuads(PixPtr pix, int quads);
// Finds the skew of the text lines of `pix` and rotates them level when it is measurable and at least a
// tenth of a degree; returns the clockwise rotation applied (radians, 0 when none).
double Deskew(PixPtr& pix);

}  // namespace mineru::document
