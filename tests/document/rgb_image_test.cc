#include "document/rgb_image.h"

#include <gtest/gtest.h>
#include <mupdf/fitz.h>

namespace mineru::document {
namespace {

RgbImage Gradient(int w, int h) {
  RgbImage im;
  im.width = w;
  im.height = h;
  im.pixels.resize(static_cast<size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &im.pixels[(static_cast<size_t>(y) * w + x) * 3];
      p[0] = static_cast<uint8_t>(x);
      p[1] = static_cast<uint8_t>(y);
      p[2] = 7;
    }
  }
  return im;
}

TEST(RgbImageTest, CropUsesThePageFrame) {
  RgbImage im = Gradient(200, 100);
  RgbImage c = im.Crop({250, 500, 750, 1000});
  EXPECT_EQ(c.width, 100);
  EXPECT_EQ(c.height, 50);
  EXPECT_EQ(c.pixels[0], 50);  // x of the first pixel
  EXPECT_EQ(c.pixels[1], 50);  // y of the first pixel
  RgbImage tiny = im.Crop({1000, 1000, 1000, 1000});
  EXPECT_EQ(tiny.width, 1);
  EXPECT_EQ(tiny.height, 1);
  EXPECT_TRUE(RgbImage{}.Crop({0, 0, 1000, 1000}).empty());
}

TEST(RgbImageTest, JpegDecodesToTheSameSize) {
  RgbImage im = Gradient(123, 45);
  auto jpeg = EncodeJpeg(im, 90);
  ASSERT_TRUE(jpeg.ok()) << jpeg.status().ToString();
  ASSERT_GT(jpeg->size(), 4u);
  EXPECT_EQ((*jpeg)[0], 0xFF);
  EXPECT_EQ((*jpeg)[1], 0xD8);
  // Decoded by MuPDF (a different decoder path than our libjpeg encoder call).
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  fz_buffer* buf = fz_new_buffer_from_copied_data(ctx, jpeg->data(), jpeg->size());
  fz_image* image = fz_new_image_from_buffer(ctx, buf);
  EXPECT_EQ(image->w, 123);
  EXPECT_EQ(image->h, 45);
  fz_pixmap* pix = fz_get_pixmap_from_image(ctx, image, nullptr, nullptr, nullptr, nullptr);
  const unsigned char* s = fz_pixmap_samples(ctx, pix);
  int n = fz_pixmap_components(ctx, pix);
  // Pixel (100, 40) was (100, 40, 7); JPEG at quality 90 stays close.
  const unsigned char* p = s + 40 * fz_pixmap_stride(ctx, pix) + 100 * n;
  EXPECT_NEAR(p[0], 100, 8);
  EXPECT_NEAR(p[1], 40, 8);
  EXPECT_NEAR(p[2], 7, 8);
  fz_drop_pixmap(ctx, pix);
  fz_drop_image(ctx, image);
  fz_drop_buffer(ctx, buf);
  fz_drop_context(ctx);
}

// `png` decoded by MuPDF (not the libpng write path that made it), as RGB pixels.
std::vector<uint8_t> DecodeWithMupdf(const std::vector<uint8_t>& png, int* width, int* height) {
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  fz_buffer* buf = fz_new_buffer_from_copied_data(ctx, png.data(), png.size());
  fz_image* image = fz_new_image_from_buffer(ctx, buf);
  fz_pixmap* pix = fz_get_pixmap_from_image(ctx, image, nullptr, nullptr, nullptr, nullptr);
  fz_pixmap* rgb =
      fz_convert_pixmap(ctx, pix, fz_device_rgb(ctx), nullptr, nullptr, fz_default_color_params, 0);
  *width = fz_pixmap_width(ctx, rgb);
  *height = fz_pixmap_height(ctx, rgb);
  std::vector<uint8_t> out;
  const unsigned char* s = fz_pixmap_samples(ctx, rgb);
  for (int y = 0; y < *height; ++y) {
    const unsigned char* row = s + static_cast<ptrdiff_t>(y) * fz_pixmap_stride(ctx, rgb);
    out.insert(out.end(), row, row + static_cast<ptrdiff_t>(*width) * 3);
  }
  fz_drop_pixmap(ctx, rgb);
  fz_drop_pixmap(ctx, pix);
  fz_drop_image(ctx, image);
  fz_drop_buffer(ctx, buf);
  fz_drop_context(ctx);
  return out;
}

// A PNG's colour type: the IHDR byte after the signature (8), the chunk's length and name (8), width,
// height and bit depth (9).
int PngColourType(const std::vector<uint8_t>& png) { return png.at(25); }

TEST(RgbImageTest, PngKeepsEveryPixelAndWritesGreyPagesAsGreyscale) {
  RgbImage grey;
  grey.width = 37;
  grey.height = 11;
  for (int i = 0; i < grey.width * grey.height; ++i) {
    const auto v = static_cast<uint8_t>((i * 29) % 256);
    grey.pixels.insert(grey.pixels.end(), {v, v, v});
  }
  RgbImage colour = grey;
  colour.pixels[3 * 200 + 2] ^= 1;  // one pixel off grey makes it a colour image
  for (const RgbImage* image : {&grey, &colour}) {
    auto png = EncodePng(*image);
    ASSERT_TRUE(png.ok()) << png.status().ToString();
    EXPECT_EQ(PngColourType(*png), image == &grey ? 0 : 2);  // 0: greyscale, 2: RGB
    int width = 0, height = 0;
    EXPECT_EQ(DecodeWithMupdf(*png, &width, &height), image->pixels);
    EXPECT_EQ(width, image->width);
    EXPECT_EQ(height, image->height);
  }
}

TEST(RgbImageTest, BadImagesAreRejected) {
  EXPECT_EQ(EncodeJpeg(RgbImage{}).status().code(), StatusCode::kInvalidArgument);
  RgbImage wrong = Gradient(4, 4);
  wrong.pixels.pop_back();
  EXPECT_EQ(EncodeJpeg(wrong).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodePng(RgbImage{}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodePng(wrong).status().code(), StatusCode::kInvalidArgument);
}

TEST(RgbImageTest, ImagePathIsSha256) {
  const uint8_t abc[] = {'a', 'b', 'c'};
  // SHA-256("abc") from FIPS 180-2.
  EXPECT_EQ(ImagePathForBytes(abc),
            "images/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad.jpg");
}

TEST(RgbImageTest, CropBlockImagesFillsTheImageMap) {
  RgbImage page = Gradient(200, 200);
  PageResult p;
  p.blocks.push_back(Block{BlockType::kImage, {0, 0, 500, 500}, "", 0, -1, ""});
  p.blocks.push_back(Block{BlockType::kText, {0, 500, 500, 600}, "t", 0, -1, ""});
  p.blocks.push_back(Block{BlockType::kTable, {500, 500, 1000, 1000}, "<table></table>", 0, -1, ""});
  ParsedDocument doc;
  ASSERT_TRUE(CropBlockImages(page, p, doc).ok());
  EXPECT_FALSE(p.blocks[0].image_path.empty());
  EXPECT_TRUE(p.blocks[1].image_path.empty());
  EXPECT_FALSE(p.blocks[2].image_path.empty());
  EXPECT_NE(p.blocks[0].image_path, p.blocks[2].image_path);
  EXPECT_EQ(doc.images.size(), 2u);
  EXPECT_EQ(doc.images.count(p.blocks[0].image_path), 1u);
}

}  // namespace
}  // namespace mineru::document
