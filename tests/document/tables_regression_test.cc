// Report tables of known structure (tests/document/tables: pages written by make_tables.py with pdfLaTeX
// and with a word processor, pdfLaTeX pages of tables of text and statistical tables, and of statistical
// offices' tables, each with its tables as reference HTML): our tables against them by the
// ICDAR 2013 adjacency-relation measure (document/table_score.h). Unlike the docling set's ground truth,
// these references are exact, so the floors below are near what the backend measures; raise them when
// it improves, never lower them to make a change pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "document/table_score.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

constexpr double kMinLatexF1 = 0.980;     // measured 0.987
constexpr double kMinWordProcF1 = 0.963;  // measured 0.970 (0.967 at 6c805aa)
constexpr double kMinTextF1 = 0.965;  // measured 0.974 (0.960 before lines stopped joining across a gutter)
constexpr double kMinOfficesF1 = 0.985;  // measured 0.994

// The summed relations of every page in `set` (a folder of tNN.pdf and tNN_ref.md).
AdjacencyScore ScoreSet(const std::string& set) {
  const std::filesystem::path root = std::filesystem::path(MINERU_TABLES_DIR) / set;
  const std::vector<testing::ReferencedPdf> pdfs = testing::ReferencedPdfs(root);
  EXPECT_GE(pdfs.size(), 10u) << root;
  AdjacencyScore total;
  for (const auto& [pdf, ref] : pdfs) {
    const AdjacencyScore s =
        ScoreTableAdjacency(testing::TextLayerMarkdown(pdf), testing::ReadFileText(ref.string()));
    EXPECT_GT(s.reference, 0) << ref;
    std::printf("%s/%-10s %4d of %4d relations found, %4d given\n", set.c_str(), pdf.filename().c_str(),
                s.matched, s.reference, s.predicted);
    total.matched += s.matched;
    total.predicted += s.predicted;
    total.reference += s.reference;
  }
  std::printf("%s: P %.3f R %.3f F1 %.3f\n", set.c_str(), total.precision(), total.recall(), total.f1());
  return total;
}

TEST(TablesRegressionTest, LatexReportTablesKeepTheirStructure) {
  EXPECT_GE(ScoreSet("latex").f1(), kMinLatexF1);
}

TEST(TablesRegressionTest, WordProcessorReportTablesKeepTheirStructure) {
  EXPECT_GE(ScoreSet("wordproc").f1(), kMinWordProcF1);
}

TEST(TablesRegressionTest, TablesOfTextAndStatisticalTablesKeepTheirStructure) {
  EXPECT_GE(ScoreSet("text").f1(), kMinTextF1);
}

TEST(TablesRegressionTest, StatisticalOfficesTablesKeepTheirStructure) {
  EXPECT_GE(ScoreSet("offices").f1(), kMinOfficesF1);
}

}  // namespace
}  // namespace mineru::document
