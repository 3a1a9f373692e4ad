// The docling set (../shared/corpus/docling): our Markdown against its ground truth. The ground truth is
// mostly another parser's output, so this is a regression guard, not an absolute score: the test fails
// when the mean normalised edit distance, the heading F1 on born-digital files or the tables' adjacency-
// relation F1 gets worse than the
// values recorded below (measured with bench/document_quality_bench; see bench/README.md). The scanned files
// go through OCR (document/ocr.h) and have floors of their own.
#include <gtest/gtest.h>

#include <filesystem>

#include "document/markdown_metrics.h"
#include "document/output_writer.h"
#include "document/table_score.h"
#include "document/text_backend.h"
#include "tests/document/test_pdf.h"
#include "tests/support/shared_data.h"

namespace mineru::document {
namespace {

// Recorded values (with a little room for noise-free but harmless changes). Lower the edit distance and
// raise the F1 when the backend improves; never loosen them to make a change pass.
constexpr double kMaxMeanEditDistance = 0.069;
// (0.855 until a heading's section number set apart in the page's top band stopped being read as a page
// number and dropped: normal_4pages' "2 코로나-19 관련 보험 현황" keeps its "2", which the ground truth
// sets after the heading, and the order puts it past the match's edit distance. Measured 0.844.)
constexpr double kMinBornDigitalHeadingF1 = 0.840;
// The scanned files, read by OCR (Tesseract): the mean, and the worst single-page scan.
constexpr double kMaxScannedMeanEditDistance = 0.07;
constexpr double kMaxSinglePageScanEditDistance = 0.02;
// Tables of the files whose ground truth has tables: the ICDAR 2013 adjacency-relation F1 over all their
// relations (document/table_score.h).
constexpr double kMinTableAdjacencyF1 = 0.745;

struct Pair {
  std::filesystem::path pdf;
  std::filesystem::path truth;
  bool scanned;
};

std::vector<Pair> DoclingPairs(const std::filesystem::path& root) {
  std::vector<Pair> pairs;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root / "groundtruth")) {
    if (!e.is_regular_file() || e.path().extension() != ".md") continue;
    std::string stem = e.path().stem().string();
    std::filesystem::path pdf = root / "pdf" / (stem + ".pdf");
    if (!std::filesystem::exists(pdf)) pdf = root / "pdf" / (stem.substr(0, stem.find('.')) + ".pdf");
    if (!std::filesystem::exists(pdf)) continue;
    bool scanned = e.path().parent_path().filename() == "ocr";
    pairs.push_back({pdf, e.path(), scanned});
  }
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) { return a.pdf < b.pdf; });
  return pairs;
}

TEST(DoclingRegressionTest, EditDistanceAndHeadingsDoNotRegress) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::vector<Pair> pairs = DoclingPairs(shared / "corpus/docling");
  ASSERT_GE(pairs.size(), 20u);
  double ned_sum = 0, scanned_sum = 0, worst_single_scan = 0;
  int matched = 0, predicted = 0, reference = 0, scanned = 0;
  AdjacencyScore tables;
  for (const Pair& p : pairs) {
    std::vector<uint8_t> bytes = testing::ReadFileBytes(p.pdf.string());
    std::string truth = testing::ReadFileText(p.truth.string());
    TextBackendOptions options;
    options.crop_images = false;
    auto parsed = ParseWithTextLayer(bytes, {}, options);
    ASSERT_TRUE(parsed.ok()) << p.pdf << ": " << parsed.status().ToString();
    std::string md = WriteMarkdown(*parsed);
    double ned = NormalizedEditDistance(StripMarkdown(md), StripMarkdown(truth));
    ned_sum += ned;
    if (p.scanned) {
      ++scanned;
      scanned_sum += ned;
      if (parsed->num_pages == 1) worst_single_scan = std::max(worst_single_scan, ned);
      // Every block of a scan came from OCR, and the JSON says so.
      for (const PageResult& page : parsed->pages) {
        EXPECT_EQ(page.status, PageStatus::kOk) << p.pdf;
        for (const Block& b : page.blocks) EXPECT_TRUE(b.ocr) << p.pdf;
      }
      EXPECT_NE(WriteContentList(*parsed).find("\"ocr\": true"), std::string::npos) << p.pdf;
    } else {
      HeadingScore h = ScoreHeadings(md, truth);
      matched += h.matched;
      predicted += h.predicted;
      reference += h.reference;
    }
    AdjacencyScore t = ScoreTableAdjacency(md, truth);
    if (t.reference > 0) {
      tables.matched += t.matched;
      tables.predicted += t.predicted;
      tables.reference += t.reference;
    }
    std::printf("%-40s edit distance %.3f\n", p.pdf.filename().c_str(), ned);
  }
  double mean = ned_sum / static_cast<double>(pairs.size());
  HeadingScore total{matched, predicted, reference};
  std::printf("mean edit distance %.4f (recorded limit %.4f); born-digital heading F1 %.3f (limit %.3f)\n",
              mean, kMaxMeanEditDistance, total.f1(), kMinBornDigitalHeadingF1);
  EXPECT_LE(mean, kMaxMeanEditDistance);
  EXPECT_GE(total.f1(), kMinBornDigitalHeadingF1);
  ASSERT_GE(scanned, 5);
  double scanned_mean = scanned_sum / scanned;
  std::printf("scanned (OCR) mean edit distance %.4f (limit %.4f), worst single page %.4f (limit %.4f)\n",
              scanned_mean, kMaxScannedMeanEditDistance, worst_single_scan, kMaxSinglePageScanEditDistance);
  EXPECT_LE(scanned_mean, kMaxScannedMeanEditDistance);
  EXPECT_LE(worst_single_scan, kMaxSinglePageScanEditDistance);
  std::printf("table adjacency relations P %.3f R %.3f F1 %.3f (limit %.3f)\n", tables.precision(),
              tables.recall(), tables.f1(), kMinTableAdjacencyF1);
  EXPECT_GE(tables.f1(), kMinTableAdjacencyF1);
}

// Right-to-left text comes out in logical order: the ground truth's first heading is found in our text.
TEST(DoclingRegressionTest, RightToLeftIsLogicalOrder) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  auto root = shared / "corpus/docling";
  std::vector<uint8_t> bytes = testing::ReadFileBytes((root / "pdf/right_to_left_01.pdf").string());
  std::string truth = testing::ReadFileText((root / "groundtruth/right_to_left_01.md").string());
  ASSERT_FALSE(bytes.empty());
  auto parsed = ParseWithTextLayer(bytes, {}, {});
  ASSERT_TRUE(parsed.ok());
  std::string md = StripMarkdown(WriteMarkdown(*parsed));
  // "تحسين الإنتاجية" (improving productivity), the first words of the ground truth's title; the second
  // word has a lam-alef ligature, whose letters come in the order of its ToUnicode entry.
  std::string words =
      "\xD8\xAA\xD8\xAD\xD8\xB3\xD9\x8A\xD9\x86\x20\xD8\xA7\xD9\x84\xD8\xA5\xD9\x86\xD8\xAA\xD8\xA7\xD8\xAC"
      "\xD9\x8A\xD8\xA9";
  ASSERT_NE(truth.find(words), std::string::npos);
  EXPECT_NE(md.find(words), std::string::npos) << md.substr(0, 300);
  EXPECT_LT(NormalizedEditDistance(md, StripMarkdown(truth)), 0.05);
}

}  // namespace
}  // namespace mineru::document
