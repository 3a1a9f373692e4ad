// OCR with the real Tesseract: pages rendered by MuPDF from PDFs made here are read back, upright and
// turned, and their boxes land where the text layer says the text is.
#include "document/ocr.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "document/pdf_document.h"
#include "document/text_backend.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

using testing::MakePdf;
using testing::TextAt;

// A page of two paragraphs: a large heading and body lines.
std::vector<uint8_t> TwoParagraphPdf() {
  std::string content = TextAt(72, 700, 28, "Quarterly Harvest Report", true);
  const char* lines[] = {"The orchard yielded more apples than in any year before.",
                         "Pears were scarce after the late frost in April.",
                         "Plums ripened early and sold quickly at the market."};
  double y = 640;
  for (const char* l : lines) {
    content += TextAt(72, y, 14, l);
    y -= 20;
  }
  return MakePdf({{content}});
}

RgbImage Render(const std::vector<uint8_t>& pdf, double dpi) {
  auto doc = PdfDocument::Open(pdf, {});
  EXPECT_TRUE(doc.ok());
  auto image = (*doc)->RenderPage(0, dpi);
  EXPECT_TRUE(image.ok());
  return image.ok() ? std::move(*image) : RgbImage{};
}

// Turns an image a quarter turn clockwise.
RgbImage TurnClockwise(const RgbImage& in) {
  RgbImage out{in.height, in.width, std::vector<uint8_t>(in.pixels.size())};
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      // (x, y) -> (H - 1 - y, x)
      size_t from = (static_cast<size_t>(y) * in.width + x) * 3;
      size_t to = (static_cast<size_t>(x) * out.width + (in.height - 1 - y)) * 3;
      for (int c = 0; c < 3; ++c) out.pixels[to + c] = in.pixels[from + c];
    }
  }
  return out;
}

std::string AllText(const OcrPage& page) {
  std::string s;
  for (const Block& b : page.blocks) s += b.content + "\n";
  return s;
}

const Block* FindBlock(const OcrPage& page, const std::string& words) {
  for (const Block& b : page.blocks) {
    if (b.content.find(words) != std::string::npos) return &b;
  }
  return nullptr;
}

void ExpectNear(const BBox& got, const BBox& want, int tolerance) {
  EXPECT_NEAR(got.x0, want.x0, tolerance);
  EXPECT_NEAR(got.y0, want.y0, tolerance);
  EXPECT_NEAR(got.x1, want.x1, tolerance);
  EXPECT_NEAR(got.y1, want.y1, tolerance);
}

TEST(OcrTest, ReadsARenderedPageIntoParagraphsAndATitle) {
  std::vector<uint8_t> pdf = TwoParagraphPdf();
  auto page = RecognizePage(Render(pdf, 300), OcrOptions{});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->rotation_deg, 0);
  EXPECT_FALSE(page->timed_out);
  std::string text = AllText(*page);
  EXPECT_NE(text.find("Harvest Report"), std::string::npos) << text;
  EXPECT_NE(text.find("late frost in April"), std::string::npos) << text;
  const Block* title = FindBlock(*page, "Harvest");
  ASSERT_NE(title, nullptr);
  EXPECT_EQ(title->type, BlockType::kTitle);
  const Block* body = FindBlock(*page, "orchard");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->type, BlockType::kText);
  for (const Block& b : page->blocks) EXPECT_TRUE(b.ocr);
  // The heading comes first, and its box is where the text layer has it.
  EXPECT_EQ(&page->blocks.front(), title);
  auto layer = ParseWithTextLayer(pdf, {}, {});
  ASSERT_TRUE(layer.ok());
  ASSERT_FALSE(layer->pages[0].blocks.empty());
  EXPECT_FALSE(layer->pages[0].blocks[0].ocr);
  ExpectNear(title->bbox, layer->pages[0].blocks[0].bbox, 12);
}

TEST(OcrTest, TurnedPagesAreReadUprightWithBoxesInTheTurnedFrame) {
  std::vector<uint8_t> pdf = TwoParagraphPdf();
  RgbImage upright = Render(pdf, 300);
  auto reference = RecognizePage(upright, OcrOptions{});
  ASSERT_TRUE(reference.ok());
  const Block* ref_title = FindBlock(*reference, "Harvest");
  ASSERT_NE(ref_title, nullptr);
  RgbImage turned = upright;
  for (int quarter = 1; quarter <= 3; ++quarter) {
    turned = TurnClockwise(turned);
    auto page = RecognizePage(turned, OcrOptions{});
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_EQ(page->rotation_deg, 90 * quarter);
    std::string text = AllText(*page);
    EXPECT_NE(text.find("late frost in April"), std::string::npos) << quarter << ": " << text;
    const Block* title = FindBlock(*page, "Harvest");
    ASSERT_NE(title, nullptr) << text;
    // The upright box turned `quarter` times clockwise in the 0-1000 frame: (x, y) -> (1000 - y, x).
    BBox want = ref_title->bbox;
    for (int k = 0; k < quarter; ++k) want = {1000 - want.y1, want.x0, 1000 - want.y0, want.x1};
    ExpectNear(title->bbox, want, 12);
  }
}

size_t ThreadsOfThisProcess() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                                           std::filesystem::directory_iterator()));
}

// A page is read on the thread that asks: Tesseract's OpenMP teams would leave their threads waiting for
// the asking thread's next team as long as it lives.
TEST(OcrTest, RecognitionRunsOnTheCallingThreadAlone) {
  RgbImage render = Render(TwoParagraphPdf(), 300);
  size_t before = 0, after = 0;
  std::thread reader([&] {
    before = ThreadsOfThisProcess();
    auto page = RecognizePage(render, OcrOptions{});
    EXPECT_TRUE(page.ok() && FindBlock(*page, "orchard") != nullptr);
    after = ThreadsOfThisProcess();
  });
  reader.join();
  EXPECT_EQ(after, before);
}

TEST(OcrTest, PerPageTimeLimitKeepsWhatWasReadAndSaysSo) {
  OcrOptions options;
  options.page_time_limit_ms = 1;
  auto page = RecognizePage(Render(TwoParagraphPdf(), 300), options);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->timed_out);
  ASSERT_FALSE(page->warnings.empty());
  EXPECT_NE(page->warnings[0].find("time limit"), std::string::npos);
}

TEST(OcrTest, StopCheckEndsRecognitionWithItsStatus) {
  auto stop = [] { return Status(StatusCode::kDeadlineExceeded, "document time budget"); };
  auto page = RecognizePage(Render(TwoParagraphPdf(), 300), OcrOptions{}, stop);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), StatusCode::kDeadlineExceeded);
}

TEST(OcrTest, MissingLanguageDataIsAClearError) {
  OcrOptions options;
  options.languages = "xx_no_such_language";
  auto page = RecognizePage(Render(TwoParagraphPdf(), 150), options);
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(page.status().message().find("xx_no_such_language"), std::string::npos);
}

PageContent ContentOf(const std::u32string& runes) {
  PageContent content;
  TextLine line;
  for (char32_t r : runes) {
    line.chars.push_back({r, {}});
    if (r != ' ') ++content.num_chars;
  }
  content.lines.push_back(line);
  return content;
}

TEST(OcrTest, UnusableTextLayersAreFound) {
  EXPECT_TRUE(TextLayerNeedsOcr(PageContent{}));
  EXPECT_FALSE(TextLayerNeedsOcr(ContentOf(U"Plain words of a page")));
  // A font without a usable ToUnicode map: replacement and private-use characters.
  EXPECT_TRUE(TextLayerNeedsOcr(ContentOf(U"\uFFFD\uFFFD\uFFFD ab")));
  EXPECT_TRUE(TextLayerNeedsOcr(ContentOf(U"\uE001\uE002\uE003\uE004 abcdefgh")));
  // A stray symbol in a page of text is not a broken layer.
  EXPECT_FALSE(TextLayerNeedsOcr(ContentOf(U"\uE001 a sentence of ordinary words")));
}

}  // namespace
}  // namespace mineru::document
