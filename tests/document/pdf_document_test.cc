#include "document/pdf_document.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/document/test_pdf.h"
#include "tests/support/shared_data.h"

namespace mineru::document {
namespace {

using testing::MakePdf;
using testing::ReadFileBytes;
using testing::TextAt;

// The bytes must outlive every PdfDocument opened on them (documents read them in place).
const std::vector<uint8_t>& Sample() {
  static const std::vector<uint8_t> bytes = ReadFileBytes(MINERU_EXAMPLES_DIR "/sample.pdf");
  return bytes;
}

TEST(PdfDocumentTest, OpensFromMemory) {
  const std::vector<uint8_t>& bytes = Sample();
  ASSERT_FALSE(bytes.empty());
  auto doc = PdfDocument::Open(bytes, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ((*doc)->page_count(), 2);
  auto size = (*doc)->GetPageSize(1);
  ASSERT_TRUE(size.ok());
  EXPECT_DOUBLE_EQ(size->width_pt, 612);
  EXPECT_DOUBLE_EQ(size->height_pt, 792);
  EXPECT_EQ((*doc)->GetPageSize(2).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*doc)->GetPageSize(-1).status().code(), StatusCode::kOutOfRange);
  EXPECT_GT((*doc)->peak_memory_bytes(), 0u);
}

TEST(PdfDocumentTest, RejectsEmptyAndGarbage) {
  EXPECT_EQ(PdfDocument::Open({}, {}).status().code(), StatusCode::kInvalidArgument);
  std::vector<uint8_t> junk(5000, 'x');
  auto doc = PdfDocument::Open(junk, {});
  EXPECT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kInvalidArgument) << doc.status().ToString();
}

TEST(PdfDocumentTest, InvalidLimitsAreRejected) {
  DocumentLimits limits;
  limits.max_memory_bytes = 1 << 20;
  EXPECT_EQ(PdfDocument::Open(Sample(), limits).status().code(), StatusCode::kInvalidArgument);
  limits = {};
  limits.max_pages = 0;
  EXPECT_EQ(PdfDocument::Open(Sample(), limits).status().code(), StatusCode::kInvalidArgument);
  limits = {};
  limits.time_budget_ms = -1;
  EXPECT_EQ(PdfDocument::Open(Sample(), limits).status().code(), StatusCode::kInvalidArgument);
}

TEST(PdfDocumentTest, RendersAtTheRequestedDpi) {
  auto doc = PdfDocument::Open(Sample(), {});
  ASSERT_TRUE(doc.ok());
  auto at72 = (*doc)->RenderPage(0, 72);
  ASSERT_TRUE(at72.ok()) << at72.status().ToString();
  EXPECT_EQ(at72->width, 612);
  EXPECT_EQ(at72->height, 792);
  auto at200 = (*doc)->RenderPage(0, 200);
  ASSERT_TRUE(at200.ok());
  EXPECT_EQ(at200->width, 1700);
  EXPECT_EQ(at200->height, 2200);
  EXPECT_EQ(at200->pixels.size(), 1700u * 2200u * 3u);
  // Mostly white paper with black text.
  size_t dark = 0;
  for (size_t i = 0; i < at200->pixels.size(); i += 3) dark += at200->pixels[i] < 100;
  EXPECT_GT(dark, 1000u);
  EXPECT_LT(dark, at200->pixels.size() / 3 / 4);
  EXPECT_EQ((*doc)->RenderPage(0, 5).status().code(), StatusCode::kInvalidArgument);
}

TEST(PdfDocumentTest, ParallelRendersMatchSequentialOnes) {
  auto doc = PdfDocument::Open(Sample(), {});
  ASSERT_TRUE(doc.ok());
  std::vector<int> pages = {0, 1, 0, 1, 1};
  auto renders = (*doc)->RenderPages(pages, 100, 3);
  ASSERT_EQ(renders.size(), pages.size());
  for (size_t i = 0; i < pages.size(); ++i) {
    ASSERT_TRUE(renders[i].ok()) << renders[i].status().ToString();
    auto single = (*doc)->RenderPage(pages[i], 100);
    ASSERT_TRUE(single.ok()) << single.status().ToString();
    EXPECT_EQ(renders[i]->width, single->width);
    size_t differ = 0;
    int max_diff = 0;
    for (size_t k = 0; k < single->pixels.size(); ++k) {
      int d = std::abs(static_cast<int>(renders[i]->pixels[k]) - static_cast<int>(single->pixels[k]));
      differ += d != 0;
      max_diff = std::max(max_diff, d);
    }
    EXPECT_EQ(differ, 0u) << "page " << pages[i] << ": max difference " << max_diff;
  }
  std::vector<int> bad = {0, 7};
  auto mixed = (*doc)->RenderPages(bad, 72, 2);
  EXPECT_TRUE(mixed[0].ok());
  EXPECT_EQ(mixed[1].status().code(), StatusCode::kOutOfRange);
}

TEST(PdfDocumentTest, RegionRenderMatchesACropOfThePage) {
  auto doc = PdfDocument::Open(Sample(), {});
  ASSERT_TRUE(doc.ok());
  auto page = (*doc)->RenderPage(1, 144);
  ASSERT_TRUE(page.ok());
  BBox region{100, 300, 600, 700};  // the table and the top of the image on page 2
  auto part = (*doc)->RenderRegion(1, 144, region);
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  RgbImage crop = page->Crop(region);
  EXPECT_NEAR(part->width, crop.width, 1);
  EXPECT_NEAR(part->height, crop.height, 1);
  int w = std::min(part->width, crop.width), h = std::min(part->height, crop.height);
  double diff = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w * 3; ++x) {
      diff += std::abs(static_cast<int>(part->pixels[static_cast<size_t>(y) * part->width * 3 + x]) -
                       static_cast<int>(crop.pixels[static_cast<size_t>(y) * crop.width * 3 + x]));
    }
  }
  EXPECT_LT(diff / (w * h * 3.0), 2.0) << "mean absolute difference per channel";
  EXPECT_EQ((*doc)->RenderRegion(1, 144, {5, 5, 5, 900}).status().code(), StatusCode::kInvalidArgument);
}

TEST(PdfDocumentTest, RegionsRenderAlikeWhateverWasRenderedBefore) {
  // Regions of one page come from one recording of it; a region of another page, and the first page's
  // regions again, are the same pixels as from a document that rendered nothing before.
  const BBox table{100, 300, 600, 700}, top{0, 0, 1000, 200};
  auto fresh = [&](int page, BBox region) {
    auto doc = PdfDocument::Open(Sample(), {});
    EXPECT_TRUE(doc.ok());
    auto image = (*doc)->RenderRegion(page, 144, region);
    EXPECT_TRUE(image.ok()) << image.status().ToString();
    return image.ok() ? image->pixels : std::vector<uint8_t>{};
  };
  auto doc = PdfDocument::Open(Sample(), {});
  ASSERT_TRUE(doc.ok());
  const std::pair<int, BBox> order[] = {{1, table}, {1, top}, {0, top}, {1, table}};
  for (const auto& [page, region] : order) {
    auto image = (*doc)->RenderRegion(page, 144, region);
    ASSERT_TRUE(image.ok()) << image.status().ToString();
    EXPECT_EQ(image->pixels, fresh(page, region)) << "page " << page;
  }
}

TEST(PdfDocumentTest, PixelCapRefusesLargeRenders) {
  DocumentLimits limits;
  limits.max_pixels_per_page = 1'000'000;
  auto doc = PdfDocument::Open(Sample(), limits);
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE((*doc)->RenderPage(0, 72).ok());  // 612 x 792 = 484,704 pixels
  auto big = (*doc)->RenderPage(0, 200);
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(big.status().message().find("pixel cap"), std::string::npos);
}

TEST(PdfDocumentTest, MemoryCapStopsMuPdf) {
  DocumentLimits limits;
  limits.max_memory_bytes = 16 << 20;
  auto doc = PdfDocument::Open(Sample(), limits);
  ASSERT_TRUE(doc.ok());
  // 600 DPI: 5100 x 6600 x 3 bytes = 101 MB of pixmap, far past the 16 MiB cap.
  auto render = (*doc)->RenderPage(0, 600);
  EXPECT_EQ(render.status().code(), StatusCode::kResourceExhausted) << render.status().ToString();
  EXPECT_LE((*doc)->peak_memory_bytes(), limits.max_memory_bytes);
  // The document stays failed: limits are per document and sticky.
  EXPECT_EQ((*doc)->RenderPage(0, 72).status().code(), StatusCode::kResourceExhausted);
}

TEST(PdfDocumentTest, PageCapRefusesLongDocuments) {
  std::vector<testing::TestPage> pages(5, testing::TestPage{TextAt(72, 700, 12, "page")});
  std::vector<uint8_t> pdf = MakePdf(pages);
  ASSERT_FALSE(pdf.empty());
  DocumentLimits limits;
  limits.max_pages = 4;
  auto doc = PdfDocument::Open(pdf, limits);
  EXPECT_EQ(doc.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(doc.status().message().find("5 pages"), std::string::npos);
  limits.max_pages = 5;
  EXPECT_TRUE(PdfDocument::Open(pdf, limits).ok());
}

// The budget leaves Open room on a loaded machine under a sanitizer (30 ms once ran out inside Open).
TEST(PdfDocumentTest, TimeBudgetEnds) {
  DocumentLimits limits;
  limits.time_budget_ms = 1000;
  auto doc = PdfDocument::Open(Sample(), limits);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ((*doc)->RenderPage(0, 72).status().code(), StatusCode::kDeadlineExceeded);
}

TEST(PdfDocumentTest, CancelFlagStopsWork) {
  CancelFlag cancel{false};
  auto doc = PdfDocument::Open(Sample(), {}, &cancel);
  ASSERT_TRUE(doc.ok());
  EXPECT_TRUE((*doc)->RenderPage(0, 72).ok());
  cancel.store(true);
  EXPECT_EQ((*doc)->RenderPage(1, 72).status().code(), StatusCode::kCancelled);
}

TEST(PdfDocumentTest, DamagedFileIsRepairedWithWarnings) {
  std::vector<uint8_t> bytes = Sample();
  bytes.resize(bytes.size() - 200);  // cut the xref and trailer
  auto doc = PdfDocument::Open(bytes, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  std::vector<std::string> warnings = (*doc)->TakeWarnings();
  EXPECT_FALSE(warnings.empty());
  EXPECT_TRUE((*doc)->TakeWarnings().empty());  // taken once
}

TEST(PdfDocumentTest, PasswordProtectedFile) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::vector<uint8_t> bytes = ReadFileBytes((shared / "corpus/docling/pdf/2206.01062_pg3.pdf").string());
  ASSERT_FALSE(bytes.empty());
  auto none = PdfDocument::Open(bytes, {});
  EXPECT_EQ(none.status().code(), StatusCode::kPermissionDenied);
  DocumentLimits limits;
  limits.password = "wrong";
  EXPECT_EQ(PdfDocument::Open(bytes, limits).status().code(), StatusCode::kPermissionDenied);
  limits.password = "1234";
  auto doc = PdfDocument::Open(bytes, limits);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_GE((*doc)->page_count(), 1);
  EXPECT_TRUE((*doc)->RenderPage(0, 50).ok());
}

}  // namespace
}  // namespace mineru::document
