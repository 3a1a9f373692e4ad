#include "document/text_backend.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "document/output_writer.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

using testing::MakePdf;
using testing::ReadFileBytes;
using testing::ReadFileText;
using testing::TextAt;

// The bytes must outlive every PdfDocument opened on them (documents read them in place).
const std::vector<uint8_t>& Sample() {
  static const std::vector<uint8_t> bytes = ReadFileBytes(MINERU_EXAMPLES_DIR "/sample.pdf");
  return bytes;
}

// examples/sample.pdf (made by examples/make-sample.sh) against its hand-written expected Markdown.
TEST(TextBackendTest, SampleMatchesItsExpectedMarkdown) {
  auto parsed = ParseWithTextLayer(Sample(), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::string md = WriteMarkdown(*parsed);
  // The image name is the SHA-256 of our JPEG bytes: check its form, then compare the rest exactly.
  std::regex hash("images/[0-9a-f]{64}\\.jpg");
  EXPECT_TRUE(std::regex_search(md, hash));
  md = std::regex_replace(md, hash, "images/HASH.jpg");
  EXPECT_EQ(md, ReadFileText(MINERU_FIXTURES_DIR "/sample.expected.md"));
}

TEST(TextBackendTest, SampleBlocksAndImages) {
  auto parsed = ParseWithTextLayer(Sample(), {}, {});
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->pages.size(), 2u);
  EXPECT_EQ(parsed->backend, "text");
  const PageResult& p2 = parsed->pages[1];
  EXPECT_DOUBLE_EQ(p2.width_pt, 612);
  const Block* table = nullptr;
  const Block* image = nullptr;
  for (const Block& b : p2.blocks) {
    if (b.type == BlockType::kTable) table = &b;
    if (b.type == BlockType::kImage) image = &b;
  }
  ASSERT_NE(table, nullptr);
  ASSERT_NE(image, nullptr);
  // The image is drawn at x 72..232, y 420..540 (PDF, bottom-up) on a 612 x 792 page.
  EXPECT_NEAR(image->bbox.x0, 72 * 1000 / 612, 2);
  EXPECT_NEAR(image->bbox.x1, 232 * 1000 / 612, 2);
  EXPECT_NEAR(image->bbox.y0, (792 - 540) * 1000 / 792, 2);
  EXPECT_NEAR(image->bbox.y1, (792 - 420) * 1000 / 792, 2);
  // Table rules: x 72..432, y 580..640.
  EXPECT_NEAR(table->bbox.x0, 72 * 1000 / 612, 2);
  EXPECT_NEAR(table->bbox.x1, 432 * 1000 / 612, 2);
  EXPECT_NEAR(table->bbox.y0, (792 - 640) * 1000 / 792, 2);
  EXPECT_EQ(parsed->images.size(), 2u);  // the image and the table crop
  ASSERT_EQ(parsed->images.count(image->image_path), 1u);
  EXPECT_EQ(parsed->images.at(image->image_path)[0], 0xFF);
  // The caption belongs to the image.
  bool caption_paired = false;
  for (const Block& b : p2.blocks) {
    if (b.type == BlockType::kImageCaption)
      caption_paired = &p2.blocks[static_cast<size_t>(b.parent)] == image;
  }
  EXPECT_TRUE(caption_paired);
  nlohmann::json items = nlohmann::json::parse(WriteContentList(*parsed));
  int tables = 0;
  for (const auto& item : items) {
    if (item["type"] == "table") {
      ++tables;
      EXPECT_EQ(item["page_idx"], 1);
      EXPECT_EQ(item["table_caption"], nlohmann::json::parse(R"(["Table 1: The two backends compared."])"));
    }
  }
  EXPECT_EQ(tables, 1);
}

// The daemon parses documents on several worker threads at once, one document per thread.
TEST(TextBackendTest, DocumentsParseInParallelOnWorkerThreads) {
  auto reference = ParseWithTextLayer(Sample(), {}, {});
  ASSERT_TRUE(reference.ok());
  std::string expected = WriteMarkdown(*reference);
  std::vector<std::string> results(3);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      auto parsed = ParseWithTextLayer(Sample(), {}, {});
      results[t] = parsed.ok() ? WriteMarkdown(*parsed) : parsed.status().ToString();
    });
  }
  for (auto& th : threads) th.join();
  for (const std::string& r : results) EXPECT_EQ(r, expected);
}

// The contents of the table blocks of a one-page PDF of `content`.
std::vector<std::string> TablesOfPage(const std::string& content) {
  std::vector<std::string> tables;
  auto parsed = ParseWithTextLayer(MakePdf({{content}}), {}, {});
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  if (!parsed.ok()) return tables;
  for (const Block& b : parsed->pages[0].blocks) {
    if (b.type == BlockType::kTable) tables.push_back(b.content);
  }
  return tables;
}

TEST(TextBackendTest, AHeaderOfShadedCellsOverRowsLeftUnshadedIsOneTable) {
  // Each header cell shaded on its own (a word processor's or colortbl's cell shading), the rows under it
  // plain: one table, the header its first row, not a grid of the header alone and a table of the rows.
  std::string fills = "0.85 g 72 500 120 16 re f 192 500 100 16 re f 292 500 100 16 re f 0 g\n";
  std::string text =
      TextAt(80, 504, 10, "Region") + TextAt(262, 504, 10, "2021") + TextAt(362, 504, 10, "2022");
  const char* rows[][3] = {
      {"North", "1,204", "1,310"}, {"South", "987", "1,002"}, {"West", "2,450", "2,611"}};
  for (int r = 0; r < 3; ++r) {
    const double y = 486 - 14.0 * r;
    text += TextAt(80, y, 10, rows[r][0]) + TextAt(262, y, 10, rows[r][1]) + TextAt(362, y, 10, rows[r][2]);
  }
  const std::vector<std::string> tables =
      TablesOfPage(TextAt(72, 700, 12, "Revenue by region.") + fills + text);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0],
            "<table><tr><td>Region</td><td>2021</td><td>2022</td></tr><tr><td>North</td><td>1,204</td>"
            "<td>1,310</td></tr><tr><td>South</td><td>987</td><td>1,002</td></tr><tr><td>West</td>"
            "<td>2,450</td><td>2,611</td></tr></table>");
}

TEST(TextBackendTest, ATableFramedWithRowsShadedInTurnCellByCellIsOneGrid) {
  // A word processor's banded table: a frame, rules between the header's cells, the header and every
  // other row shaded cell by cell; the unshaded rows between have no rule of their own (one of them
  // wraps its label). The stripes' cell sides are the columns of the rows between them too.
  std::string drawing =
      "0.5 w 72 328 300 72 re S 172 388 m 172 400 l S 272 388 m 272 400 l S\n"
      "0.6 g 72 388 100 12 re f 172 388 100 12 re f 272 388 100 12 re f\n"
      "0.9 g 72 376 100 12 re f 172 376 100 12 re f 272 376 100 12 re f\n"
      "72 340 100 12 re f 172 340 100 12 re f 272 340 100 12 re f 0 g\n";
  std::string text = TextAt(76, 391, 9, "Region") + TextAt(246, 391, 9, "2021") + TextAt(346, 391, 9, "2022");
  const char* rows[][3] = {{"North", "1,204", "1,310"},
                           {"Social", "987", "1,002"},
                           {"West", "2,450", "2,611"},
                           {"East", "1,116", "1,190"}};
  const double ys[] = {379, 367, 343, 331};
  for (int r = 0; r < 4; ++r) {
    text += TextAt(76, ys[r], 9, rows[r][0]) + TextAt(240, ys[r], 9, rows[r][1]) +
            TextAt(340, ys[r], 9, rows[r][2]);
  }
  text += TextAt(76, 356, 9, "services");
  const std::vector<std::string> tables =
      TablesOfPage(TextAt(72, 700, 12, "Revenue by region.") + drawing + text);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0],
            "<table><tr><td>Region</td><td>2021</td><td>2022</td></tr><tr><td>North</td><td>1,204</td>"
            "<td>1,310</td></tr><tr><td>Social services</td><td>987</td><td>1,002</td></tr><tr><td>West</td>"
            "<td>2,450</td><td>2,611</td></tr><tr><td>East</td><td>1,116</td><td>1,190</td></tr></table>");
}

TEST(TextBackendTest, ARowMergedAcrossABandedTableBetweenItsStripesStaysOneCell) {
  // The same banded table with a group's name centred in a row merged across the table, between two
  // stripes: that row takes no column from the stripes.
  std::string drawing =
      "0.5 w 72 328 300 72 re S 172 388 m 172 400 l S 272 388 m 272 400 l S\n"
      "0.6 g 72 388 100 12 re f 172 388 100 12 re f 272 388 100 12 re f\n"
      "0.9 g 72 376 100 12 re f 172 376 100 12 re f 272 376 100 12 re f\n"
      "72 352 100 12 re f 172 352 100 12 re f 272 352 100 12 re f 0 g\n";
  std::string text = TextAt(76, 391, 9, "Region") + TextAt(246, 391, 9, "2021") +
                     TextAt(346, 391, 9, "2022") + TextAt(76, 379, 9, "North") +
                     TextAt(240, 379, 9, "1,204") + TextAt(340, 379, 9, "1,310") +
                     TextAt(200, 367, 9, "Coastal areas") + TextAt(76, 355, 9, "West") +
                     TextAt(240, 355, 9, "2,450") + TextAt(340, 355, 9, "2,611") +
                     TextAt(76, 343, 9, "East") + TextAt(240, 343, 9, "1,116") + TextAt(340, 343, 9, "1,190");
  const std::vector<std::string> tables =
      TablesOfPage(TextAt(72, 700, 12, "Revenue by region.") + drawing + text);
  ASSERT_EQ(tables.size(), 1u);
  const std::string& table = tables[0];
  EXPECT_NE(table.find("<tr><td colspan=\"3\">Coastal areas</td></tr>"), std::string::npos) << table;
  EXPECT_NE(table.find("<tr><td>West</td><td>2,450</td><td>2,611</td></tr>"), std::string::npos) << table;
}

TEST(TextBackendTest, TablesOfHorizontalRulesAndOfShadedCells) {
  // Page 1: a table drawn with a top rule, a rule under the header and a bottom rule, words only.
  std::string rules = "0.5 w 72 600 m 400 600 l S 72 582 m 400 582 l S 72 528 m 400 528 l S\n";
  std::string cells;
  const char* rows[][3] = {{"Region", "Lead", "Status"},
                           {"North", "Anna", "Open"},
                           {"South", "Ben", "Closed"},
                           {"West", "Cleo", "Open"}};
  double ys[] = {588, 568, 552, 536};
  for (int r = 0; r < 4; ++r) {
    cells += TextAt(80, ys[r], 10, rows[r][0]) + TextAt(200, ys[r], 10, rows[r][1]) +
             TextAt(300, ys[r], 10, rows[r][2]);
  }
  // Page 2: shaded cells only, the header cell over both columns (mid-page: a number alone in the top
  // band would be a page number).
  std::string fills =
      "0.8 g 72 400 200 20 re f 0.9 g 72 380 100 20 re f 172 380 100 20 re f "
      "72 360 100 20 re f 172 360 100 20 re f 0 g\n";
  std::string shaded = TextAt(80, 406, 10, "Totals") + TextAt(80, 386, 10, "Ducks") +
                       TextAt(180, 386, 10, "12") + TextAt(80, 366, 10, "Geese") + TextAt(180, 366, 10, "7");
  std::vector<uint8_t> pdf =
      MakePdf({{TextAt(72, 700, 12, "Staff by region.") + rules + cells}, {fills + shaded}});
  ASSERT_FALSE(pdf.empty());
  auto parsed = ParseWithTextLayer(pdf, {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto table_of = [&](size_t page) {
    for (const Block& b : parsed->pages[page].blocks) {
      if (b.type == BlockType::kTable) return b.content;
    }
    return std::string();
  };
  EXPECT_EQ(
      table_of(0),
      "<table><tr><td>Region</td><td>Lead</td><td>Status</td></tr><tr><td>North</td><td>Anna</td>"
      "<td>Open</td></tr><tr><td>South</td><td>Ben</td><td>Closed</td></tr><tr><td>West</td><td>Cleo</td>"
      "<td>Open</td></tr></table>");
  EXPECT_EQ(
      table_of(1),
      "<table><tr><td colspan=\"2\">Totals</td></tr><tr><td>Ducks</td><td>12</td></tr><tr><td>Geese</td>"
      "<td>7</td></tr></table>");
}

// The last table block of the first page of `pdf` read with the text layer ("" when none).
std::string LastTable(const std::vector<uint8_t>& pdf) {
  auto parsed = ParseWithTextLayer(pdf, {}, {});
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::string table;
  if (!parsed.ok()) return table;
  for (const Block& b : parsed->pages[0].blocks) {
    if (b.type == BlockType::kTable) table = b.content;
  }
  return table;
}

TEST(TextBackendTest, ATableBetweenRulesWithItsColumnsASpaceApart) {
  // LNCS sets 1.4 pt either side of a column: its columns stand 3 pt apart, a word space, the labels
  // flush left and the figures and their headings flush right.
  const std::string rules = "0.5 w 98 598 m 253 598 l S 98 580 m 253 580 l S 98 522 m 253 522 l S\n";
  const std::string cells = TextAt(100, 588, 10, "Method") + TextAt(145.25, 588, 10, "Recall") +
                            TextAt(176.03, 588, 10, "Accuracy") + TextAt(222.95, 588, 10, "Recall") +
                            TextAt(100, 570, 10, "Bruno-8") + TextAt(142.45, 570, 10, "10.004") +
                            TextAt(197.69, 570, 10, "47.2") + TextAt(220.15, 570, 10, "96.375") +
                            TextAt(100, 556, 10, "Tomas-5") + TextAt(142.45, 556, 10, "52.869") +
                            TextAt(192.13, 556, 10, "85.32") + TextAt(220.15, 556, 10, "24.318") +
                            TextAt(100, 542, 10, "Priya-7") + TextAt(153.57, 542, 10, "62.8") +
                            TextAt(192.13, 542, 10, "0.752") + TextAt(225.71, 542, 10, "77.29") +
                            TextAt(100, 528, 10, "Kenji-3") + TextAt(142.45, 528, 10, "97.339") +
                            TextAt(192.13, 528, 10, "28.08") + TextAt(220.15, 528, 10, "72.694");
  EXPECT_EQ(LastTable(MakePdf({{TextAt(72, 700, 12, "Scores by method.") + rules + cells}})),
            "<table><tr><td>Method</td><td>Recall</td><td>Accuracy</td><td>Recall</td></tr>"
            "<tr><td>Bruno-8</td><td>10.004</td><td>47.2</td><td>96.375</td></tr>"
            "<tr><td>Tomas-5</td><td>52.869</td><td>85.32</td><td>24.318</td></tr>"
            "<tr><td>Priya-7</td><td>62.8</td><td>0.752</td><td>77.29</td></tr>"
            "<tr><td>Kenji-3</td><td>97.339</td><td>28.08</td><td>72.694</td></tr></table>");
}

TEST(TextBackendTest, ATightTableWhoseFirstFiguresStartTheirPieces) {
  // The same setting, where a row's first two figures are one piece after its label ("75.986 66.104") and
  // the column they would be told by starts pieces of other rows ("52.21" after a wider gap); the header's
  // first two words are one piece too ("Method Accuracy"), its other words pieces of their own.
  const std::string rules = "0.5 w 98 598 m 250 598 l S 98 580 m 250 580 l S 98 512 m 250 512 l S\n";
  const std::string cells =
      TextAt(100.00, 588, 10, "Method") + TextAt(137.81, 588, 10, "Accuracy") +
      TextAt(200.64, 588, 10, "F1") + TextAt(234.02, 588, 10, "F1") + TextAt(100.00, 570, 10, "Nadia-2") +
      TextAt(148.35, 570, 10, "75.986") + TextAt(181.73, 570, 10, "66.104") +
      TextAt(226.23, 570, 10, "8.24") + TextAt(100.00, 556, 10, "Lena-2") + TextAt(159.47, 556, 10, "23.5") +
      TextAt(187.29, 556, 10, "52.21") + TextAt(215.11, 556, 10, "82.773") +
      TextAt(100.00, 542, 10, "Chen-6") + TextAt(153.91, 542, 10, "12.79") +
      TextAt(181.73, 542, 10, "67.376") + TextAt(215.11, 542, 10, "24.129") +
      TextAt(100.00, 528, 10, "Rui-8") + TextAt(159.47, 528, 10, "27.9") + TextAt(187.29, 528, 10, "13.46") +
      TextAt(215.11, 528, 10, "16.423") + TextAt(100.00, 516, 10, "Priya-1") +
      TextAt(159.47, 516, 10, "71.5") + TextAt(181.73, 516, 10, "93.228") + TextAt(215.11, 516, 10, "26.264");
  EXPECT_EQ(LastTable(MakePdf({{TextAt(72, 700, 12, "Scores by method.") + rules + cells}})),
            "<table><tr><td>Method</td><td>Accuracy</td><td>F1</td><td>F1</td></tr>"
            "<tr><td>Nadia-2</td><td>75.986</td><td>66.104</td><td>8.24</td></tr>"
            "<tr><td>Lena-2</td><td>23.5</td><td>52.21</td><td>82.773</td></tr>"
            "<tr><td>Chen-6</td><td>12.79</td><td>67.376</td><td>24.129</td></tr>"
            "<tr><td>Rui-8</td><td>27.9</td><td>13.46</td><td>16.423</td></tr>"
            "<tr><td>Priya-1</td><td>71.5</td><td>93.228</td><td>26.264</td></tr></table>");
  // A figure wider than its heading starts before it, so the gutter between the stub and that column
  // (from "Method"'s end to "87.363"'s start) lies left of the space's middle between "Method" and
  // "Score": they still part, one over each column.
  const std::string narrow = TextAt(100.00, 588, 10, "Method") + TextAt(140.61, 588, 10, "Score") +
                             TextAt(171.20, 588, 10, "Speed") + TextAt(100.00, 570, 10, "Alice-2") +
                             TextAt(147.27, 570, 10, "89.4") + TextAt(180.65, 570, 10, "61.4") +
                             TextAt(100.00, 556, 10, "Hana-1") + TextAt(147.27, 556, 10, "3.93") +
                             TextAt(186.21, 556, 10, "9.9") + TextAt(100.00, 542, 10, "Alice-2") +
                             TextAt(136.15, 542, 10, "87.363") + TextAt(169.53, 542, 10, "85.226");
  EXPECT_EQ(LastTable(MakePdf(
                {{TextAt(72, 700, 12, "Scores by method.") +
                  "0.5 w 98 598 m 206 598 l S 98 580 m 206 580 l S 98 534 m 206 534 l S\n" + narrow}})),
            "<table><tr><td>Method</td><td>Score</td><td>Speed</td></tr>"
            "<tr><td>Alice-2</td><td>89.4</td><td>61.4</td></tr>"
            "<tr><td>Hana-1</td><td>3.93</td><td>9.9</td></tr>"
            "<tr><td>Alice-2</td><td>87.363</td><td>85.226</td></tr></table>");
}

TEST(TextBackendTest, AReportTableWithWrappedLabelsAndTwoHeaderLevelsWithAndWithoutRules) {
  // A heading centred over two columns (narrower than they are), labels wrapped onto a second line
  // (one ending in "and", one indented), the values on each label's first line; once between a top
  // rule, a rule under the header and a bottom rule, once with no rules at all.
  struct Cell {
    double x, y;
    const char* text;
  };
  const Cell cells[] = {{330, 648, "Fiscal year 2020"},
                        {72, 636, "Agency"},
                        {300, 636, "Actual"},
                        {380, 636, "Estimate"},
                        {460, 636, "Change"},
                        {72, 618, "Department of Health and"},
                        {300, 618, "1,234"},
                        {380, 618, "5,678"},
                        {460, 618, "12.5"},
                        {72, 607, "Human Services"},
                        {72, 592, "Department of Defense"},
                        {300, 592, "9,876"},
                        {380, 592, "5,432"},
                        {460, 592, "-3.1"},
                        {72, 577, "Office of Personnel"},
                        {300, 577, "77"},
                        {380, 577, "81"},
                        {460, 577, "5.2"},
                        {80, 566, "Management"},
                        {72, 551, "Department of Energy"},
                        {300, 551, "312"},
                        {380, 551, "298"},
                        {460, 551, "-4.5"}};
  std::string table;
  for (const Cell& c : cells) table += TextAt(c.x, c.y, 9, c.text);
  // (Text repeated at one place on every page would be a running header: each page says its own.)
  auto around = [](const std::string& drawn) {
    return TextAt(72, 700, 10, "Obligations of each agency, in millions of dollars, " + drawn + ".") +
           TextAt(72, 500, 10, "The text goes on after the table, a paragraph of prose.");
  };
  const std::string rules = "0.5 w 72 660 m 540 660 l S 72 630 m 540 630 l S 72 540 m 540 540 l S\n";
  std::vector<uint8_t> pdf =
      MakePdf({{around("with rules") + rules + table}, {around("without rules") + table}});
  ASSERT_FALSE(pdf.empty());
  auto parsed = ParseWithTextLayer(pdf, {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const std::string expected =
      "<table><tr><td rowspan=\"2\">Agency</td><td colspan=\"2\">Fiscal year 2020</td>"
      "<td rowspan=\"2\">Change</td></tr><tr><td>Actual</td><td>Estimate</td></tr>"
      "<tr><td>Department of Health and Human Services</td><td>1,234</td><td>5,678</td><td>12.5</td></tr>"
      "<tr><td>Department of Defense</td><td>9,876</td><td>5,432</td><td>-3.1</td></tr>"
      "<tr><td>Office of Personnel Management</td><td>77</td><td>81</td><td>5.2</td></tr>"
      "<tr><td>Department of Energy</td><td>312</td><td>298</td><td>-4.5</td></tr></table>";
  for (size_t page = 0; page < 2; ++page) {
    std::vector<std::string> contents;
    for (const Block& b : parsed->pages[page].blocks) contents.push_back(b.content);
    ASSERT_EQ(contents.size(), 3u) << "page " << page + 1 << ": " << ::testing::PrintToString(contents);
    EXPECT_EQ(contents[1], expected) << "page " << page + 1;
    EXPECT_EQ(contents[2], "The text goes on after the table, a paragraph of prose.") << "page " << page + 1;
  }
}

TEST(TextBackendTest, PageWithoutTextNeedsOcrWhenOcrIsOff) {
  std::vector<uint8_t> pdf =
      MakePdf({{TextAt(72, 700, 12, "Only the first page has text.")}, {"0 0 1 rg 100 100 300 300 re f\n"}});
  ASSERT_FALSE(pdf.empty());
  TextBackendOptions options;
  options.ocr.enabled = false;
  auto parsed = ParseWithTextLayer(pdf, {}, options);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->pages.size(), 2u);
  EXPECT_EQ(parsed->pages[0].status, PageStatus::kOk);
  EXPECT_EQ(parsed->pages[1].status, PageStatus::kNeedsOcr);
  EXPECT_TRUE(parsed->pages[1].blocks.empty());
  std::string md = WriteMarkdown(*parsed);
  EXPECT_NE(md.find("<!-- page 2: needs OCR or a model"), std::string::npos) << md;
  nlohmann::json mid = nlohmann::json::parse(WriteMiddleJson(*parsed));
  EXPECT_EQ(mid["pdf_info"][1]["status"], "needs_ocr");
}

TEST(TextBackendTest, ProgressCallbackSeesEveryPageAndCanStop) {
  std::vector<uint8_t> pdf =
      MakePdf({{TextAt(72, 700, 12, "one")}, {TextAt(72, 700, 12, "two")}, {TextAt(72, 700, 12, "three")}});
  std::vector<int> seen;
  TextBackendOptions options;
  options.on_page = [&](const PageProgress& p) {
    seen.push_back(p.page_index);
    EXPECT_EQ(p.num_pages, 3);
    EXPECT_NE(p.page, nullptr);
    return true;
  };
  ASSERT_TRUE(ParseWithTextLayer(pdf, {}, options).ok());
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  seen.clear();
  options.on_page = [&](const PageProgress& p) {
    seen.push_back(p.page_index);
    return p.page_index < 1;
  };
  auto stopped = ParseWithTextLayer(pdf, {}, options);
  EXPECT_EQ(stopped.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(seen, (std::vector<int>{0, 1}));
}

TEST(TextBackendTest, PageRangeParsesOnlyThosePagesWithTheirOwnIndices) {
  std::vector<uint8_t> pdf = MakePdf({{TextAt(72, 700, 12, "one")},
                                      {TextAt(72, 700, 12, "two")},
                                      {TextAt(72, 700, 12, "three")},
                                      {TextAt(72, 700, 12, "four")}});
  TextBackendOptions options;
  options.pages = PageRange{1, 2};
  std::vector<int> seen;
  options.on_page = [&](const PageProgress& p) {
    seen.push_back(p.page_index);
    EXPECT_EQ(p.num_pages, 2);
    return true;
  };
  auto parsed = ParseWithTextLayer(pdf, {}, options);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(parsed->num_pages, 4);
  ASSERT_EQ(parsed->pages.size(), 2u);
  EXPECT_EQ(parsed->pages[0].page_idx, 1);
  const std::string md = WriteMarkdown(*parsed);
  EXPECT_EQ(md.find("one"), std::string::npos) << md;
  EXPECT_NE(md.find("two"), std::string::npos) << md;
  EXPECT_NE(md.find("three"), std::string::npos) << md;
  EXPECT_EQ(md.find("four"), std::string::npos) << md;

  options.pages = PageRange{3, PageRange::kToEnd};
  seen.clear();
  options.on_page = [&](const PageProgress& p) {
    seen.push_back(p.page_index);
    return true;
  };
  ASSERT_TRUE(ParseWithTextLayer(pdf, {}, options).ok());
  EXPECT_EQ(seen, (std::vector<int>{3}));

  options.pages = PageRange{4, 9};
  auto past = ParseWithTextLayer(pdf, {}, options);
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(past.status().message().find("pages 5-10 starts past the end: the document has 4 pages"),
            std::string::npos)
      << past.status().ToString();
  options.pages = PageRange{2, 1};
  EXPECT_EQ(ParseWithTextLayer(pdf, {}, options).status().code(), StatusCode::kInvalidArgument);
}

TEST(TextBackendTest, CancelFlagStopsParsing) {
  CancelFlag cancel{true};
  TextBackendOptions options;
  options.cancel = &cancel;
  auto parsed = ParseWithTextLayer(Sample(), {}, options);
  EXPECT_EQ(parsed.status().code(), StatusCode::kCancelled);
}

TEST(TextBackendTest, RunningFooterAndPageNumbersLeftOut) {
  std::vector<testing::TestPage> pages;
  for (int i = 1; i <= 3; ++i) {
    pages.push_back({TextAt(72, 770, 8, "ACME Quarterly Report") +
                     TextAt(72, 600, 11, "Body of page " + std::to_string(i) + ".") +
                     TextAt(300, 30, 8, std::to_string(i))});
  }
  auto parsed = ParseWithTextLayer(MakePdf(pages), {}, {});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(WriteMarkdown(*parsed), "Body of page 1.\n\nBody of page 2.\n\nBody of page 3.\n");
}

TEST(TextBackendTest, ALandscapeTableOnAPortraitPageIsReadUprightWhereItStands) {
  // Four rows of three cells reading up the page (x 200..260 in PDF space), columns at y 150, 300, 450.
  const char* rows[4][3] = {{"Region", "Population", "Schools"},
                            {"North East", "2,647,013", "1,142"},
                            {"North West", "7,417,397", "3,410"},
                            {"London", "8,799,728", "3,111"}};
  std::string content;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) {
      content += "BT /F1 10 Tf 0 1 -1 0 " + std::to_string(200 + 20 * r) + " " +
                 std::to_string(150 + 150 * c) + " Tm (" + rows[r][c] + ") Tj ET\n";
    }
  }
  const std::vector<uint8_t> pdf = MakePdf({{content}});
  auto parsed = ParseWithTextLayer(pdf, {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->pages.size(), 1u);
  const PageResult& page = parsed->pages[0];
  EXPECT_DOUBLE_EQ(page.width_pt, 612);
  EXPECT_DOUBLE_EQ(page.height_pt, 792);
  ASSERT_EQ(page.blocks.size(), 1u);
  const Block& table = page.blocks[0];
  EXPECT_EQ(table.type, BlockType::kTable);
  EXPECT_TRUE(table.content.starts_with("<table><tr><td>Region</td><td>Population</td><td>Schools</td></tr>"))
      << table.content;
  // In the page's frame: narrow across (the rows), tall down the page (the columns).
  EXPECT_NEAR(table.bbox.x0, 190 * 1000 / 612, 8);
  EXPECT_NEAR(table.bbox.x1, 260 * 1000 / 612, 8);
  EXPECT_NEAR(table.bbox.y0, (792 - 486) * 1000 / 792, 8);  // "Schools" ends 36 pt up from 450
  EXPECT_NEAR(table.bbox.y1, (792 - 150) * 1000 / 792, 8);
  EXPECT_EQ(page.warnings,
            (std::vector<std::string>{"the page's text is turned 270 degrees clockwise; read upright"}));
}

TEST(TextBackendTest, AnAbstractSetCloseOverTwoColumnsIsReadBeforeThem) {
  // A paper's first page: title, authors and affiliations centred (each crossing the columns' gutter),
  // the abstract across the page, then, 7 pt under it (less than a blank line), two columns whose
  // baselines do not line up with each other.
  std::string content = TextAt(150, 722, 15, "Scheduling Two Stages Under a Budget") +
                        TextAt(220, 700, 10, "Alice Smith, Bob Jones, Carol White") +
                        TextAt(235, 686, 9, "University of Examples") + TextAt(288, 662, 10, "Abstract");
  for (int i = 0; i < 4; ++i) {
    content += TextAt(
        90, 650 - 11.0 * i, 9,
        "The abstract runs across the page as one paragraph of text, line " + std::to_string(i) + " of it.");
  }
  content += TextAt(72, 598, 11, "1 Introduction");
  for (int i = 0; i < 12; ++i) {
    content +=
        TextAt(72, 582 - 11.0 * i, 9, "left column text that runs on, line " + std::to_string(i) + " of it");
    content += TextAt(318, 598 - 11.0 * i, 9, "right column text, line " + std::to_string(i) + " of it");
  }
  const std::vector<uint8_t> pdf = MakePdf({{content}});
  auto parsed = ParseWithTextLayer(pdf, {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const std::string md = WriteMarkdown(*parsed);
  const size_t abstract = md.find("The abstract runs"),
               left = md.find("left column text that runs on, line 0"),
               left_end = md.find("left column text that runs on, line 11"),
               right = md.find("right column text, line 0");
  ASSERT_NE(abstract, std::string::npos) << md;
  EXPECT_LT(abstract, left) << md;
  EXPECT_LT(left_end, right) << md;  // the left column whole, then the right one
}

}  // namespace
}  // namespace mineru::document
