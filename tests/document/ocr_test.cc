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
using testing::MakePdfOfPicture;
using testing::Picture;
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
  EXPECT_EQ(JudgeTextLayer(PageContent{}), TextLayerUse::kEmpty);
  EXPECT_EQ(JudgeTextLayer(ContentOf(U"Plain words of a page")), TextLayerUse::kUsable);
  // A font without a usable ToUnicode map: replacement and private-use characters.
  EXPECT_EQ(JudgeTextLayer(ContentOf(U"\uFFFD\uFFFD\uFFFD ab")), TextLayerUse::kGarbage);
  EXPECT_EQ(JudgeTextLayer(ContentOf(U"\uE001\uE002\uE003\uE004 abcdefgh")), TextLayerUse::kGarbage);
  // A stray symbol in a page of text is not a broken layer.
  EXPECT_EQ(JudgeTextLayer(ContentOf(U"\uE001 a sentence of ordinary words")), TextLayerUse::kUsable);
}

// A page of `lines` (boxes in points on a 612 x 792 page) over `images`.
PageContent PageOf(const std::vector<Rect>& images, const std::vector<Rect>& lines) {
  PageContent content = ContentOf(U"Bates 000123");
  content.page = {0, 0, 612, 792};
  content.images = images;
  content.lines.clear();
  for (const Rect& box : lines) {
    TextLine line = ContentOf(U"Bates 000123").lines[0];
    line.box = box;
    content.lines.push_back(line);
  }
  return content;
}

TEST(OcrTest, APageSizePictureUnderTextInItsMarginsIsFound) {
  const Rect page{0, 0, 612, 792}, foot{400, 760, 580, 772}, middle{200, 380, 420, 392};
  // A page number set high in the bottom margin is still in it.
  EXPECT_EQ(JudgeTextLayer(PageOf({page}, {foot, {303, 696, 308, 705}})), TextLayerUse::kMarginsOverPicture);
  EXPECT_EQ(JudgeTextLayer(PageOf({page}, {foot})), TextLayerUse::kMarginsOverPicture);
  // A line up the right margin, a header line; a scan in two strips covers the page too.
  EXPECT_EQ(JudgeTextLayer(PageOf({page}, {{590, 200, 600, 600}, {40, 20, 300, 30}})),
            TextLayerUse::kMarginsOverPicture);
  EXPECT_EQ(JudgeTextLayer(PageOf({{0, 0, 612, 400}, {0, 390, 612, 792}}, {foot})),
            TextLayerUse::kMarginsOverPicture);
  // Text in the page's middle is the page's own; a figure inside the margins is no scan, and neither are
  // two strips leaving a third of the page bare.
  EXPECT_EQ(JudgeTextLayer(PageOf({page}, {foot, middle})), TextLayerUse::kUsable);
  EXPECT_EQ(JudgeTextLayer(PageOf({{72, 72, 540, 720}}, {foot})), TextLayerUse::kUsable);
  EXPECT_EQ(JudgeTextLayer(PageOf({{72, 72, 540, 720}, {72, 72, 540, 720}}, {foot})), TextLayerUse::kUsable);
  EXPECT_EQ(JudgeTextLayer(PageOf({{0, 0, 612, 264}, {0, 528, 612, 792}}, {foot})), TextLayerUse::kUsable);
}

Picture GreyOf(const RgbImage& rgb) {
  Picture p{std::vector<uint8_t>(static_cast<size_t>(rgb.width) * rgb.height), rgb.width, rgb.height};
  for (size_t i = 0; i < p.grey.size(); ++i) {
    p.grey[i] = static_cast<uint8_t>((rgb.pixels[3 * i] + rgb.pixels[3 * i + 1] + rgb.pixels[3 * i + 2]) / 3);
  }
  return p;
}

std::string BlocksText(const PageResult& page) {
  std::string s;
  for (const Block& b : page.blocks) s += b.content + "\n";
  return s;
}

// A scanned page under a stamp: the stamp is all its text layer holds.
TEST(OcrTest, AScanUnderAStampIsReadWholeAndSaysWhy) {
  const Picture scan = GreyOf(Render(TwoParagraphPdf(), 150));
  const std::string stamp = TextAt(420, 20, 9, "CONFIDENTIAL ACME000123");
  auto parsed = ParseWithTextLayer(MakePdfOfPicture(scan, 0, 0, 612, 792, stamp), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const PageResult& page = parsed->pages[0];
  EXPECT_NE(BlocksText(page).find("late frost in April"), std::string::npos) << BlocksText(page);
  for (const Block& b : page.blocks) EXPECT_TRUE(b.ocr);
  ASSERT_FALSE(page.warnings.empty());
  EXPECT_NE(page.warnings[0].find("stamp over a scan"), std::string::npos) << page.warnings[0];

  // With OCR off the page keeps what its text layer holds.
  TextBackendOptions no_ocr;
  no_ocr.ocr.enabled = false;
  parsed = ParseWithTextLayer(MakePdfOfPicture(scan, 0, 0, 612, 792, stamp), {}, no_ocr);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->pages[0].status, PageStatus::kOk);
  EXPECT_NE(BlocksText(parsed->pages[0]).find("ACME000123"), std::string::npos);

  // The same picture inside the page's margins is a figure: the page's text layer is read.
  parsed = ParseWithTextLayer(MakePdfOfPicture(scan, 90, 100, 432, 600, stamp), {}, {});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(BlocksText(parsed->pages[0]).find("frost"), std::string::npos);
  for (const Block& b : parsed->pages[0].blocks) EXPECT_FALSE(b.ocr);
}

// A cover: a photo over the whole page (here shades of grey) under a title and a line at the foot. OCR
// reads no more than the title and the line, so the text layer's reading stays.
TEST(OcrTest, ACoversPhotoUnderItsTitleKeepsTheTextLayer) {
  Picture photo{std::vector<uint8_t>(300 * 400), 300, 400};
  for (size_t i = 0; i < photo.grey.size(); ++i) photo.grey[i] = static_cast<uint8_t>(150 + (i / 300) % 100);
  const std::string text = TextAt(72, 720, 30, "Annual Report on Rivers", true) +
                           TextAt(72, 40, 12, "Ministry of Water and Land, 2024");
  auto parsed = ParseWithTextLayer(MakePdfOfPicture(photo, 0, 0, 612, 792, text), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const PageResult& page = parsed->pages[0];
  EXPECT_NE(BlocksText(page).find("Annual Report on Rivers"), std::string::npos) << BlocksText(page);
  EXPECT_NE(BlocksText(page).find("Ministry of Water and Land, 2024"), std::string::npos);
  for (const Block& b : page.blocks) EXPECT_FALSE(b.ocr);
  EXPECT_TRUE(page.warnings.empty()) << page.warnings[0];
}

}  // namespace
}  // namespace mineru::document
