#include "document/figure_regions.h"

#include <gtest/gtest.h>

#include "document/output_writer.h"
#include "document/text_backend.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

using testing::MakePdf;
using testing::TextAt;

// A page with a paragraph, a vector bar chart (axes, 6 bars, grid lines, tick values, axis titles, a
// legend) under it, its caption, and a paragraph in a framed, shaded box.
std::vector<uint8_t> ChartPage() {
  std::string c;
  const char* para[] = {"The urinary excretion of the drug rose with the dose in every group that we",
                        "studied, as the chart below shows for the six doses given in the trial."};
  double y = 720;
  for (const char* l : para) {
    c += TextAt(72, y, 10, l);
    y -= 12;
  }
  // Axes and grid.
  c += "0 0 0 RG 1 w 120 450 m 120 650 l S 120 450 m 480 450 l S\n";
  for (int k = 1; k <= 4; ++k)
    c += "0.8 0.8 0.8 RG 0.5 w 120 " + std::to_string(450 + 40 * k) + " m 480 " +
         std::to_string(450 + 40 * k) + " l S\n";
  // Bars.
  const int heights[] = {30, 60, 90, 120, 150, 180};
  for (int k = 0; k < 6; ++k) {
    c += "0.2 0.4 0.8 rg " + std::to_string(140 + 55 * k) + " 450 30 " + std::to_string(heights[k]) +
         " re f\n";
  }
  c += "0 0 0 rg\n";
  for (int k = 0; k <= 4; ++k) c += TextAt(100, 447 + 40 * k, 8, std::to_string(10 * k));
  for (int k = 0; k < 6; ++k) c += TextAt(148 + 55 * k, 438, 8, std::to_string(10 * (k + 1)));
  c += TextAt(240, 430, 8, "Dose (micromol/kg)");
  c += TextAt(380, 630, 8, "Urinary excretion");
  c += TextAt(72, 400, 10, "Figure 1. Excretion by dose.");
  // A framed, shaded box around a paragraph: not a figure.
  c += "0.95 0.95 0.95 rg 70 250 400 60 re f 0 0 0 RG 1 w 70 250 400 60 re S 0 0 0 rg\n";
  c += TextAt(80, 290, 10, "Note: the doses were given once a day for a week, with water.");
  c += TextAt(80, 276, 10, "Samples were taken every morning before the next dose.");
  return MakePdf({{c}});
}

TEST(FigureRegionsTest, AVectorChartIsAnImageAndItsLabelsAreNotBodyText) {
  auto parsed = ParseWithTextLayer(ChartPage(), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->pages.size(), 1u);
  int images = 0;
  for (const Block& b : parsed->pages[0].blocks) images += b.type == BlockType::kImage;
  EXPECT_EQ(images, 1);
  std::string md = WriteMarkdown(*parsed);
  EXPECT_NE(md.find("rose with the dose in every group"), std::string::npos) << md;
  EXPECT_EQ(md.find("Urinary excretion\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("micromol/kg"), std::string::npos) << md;
  EXPECT_EQ(md.find("\n40\n"), std::string::npos) << md;
  EXPECT_NE(md.find("Figure 1. Excretion by dose."), std::string::npos) << md;
  // The boxed paragraph stays text.
  EXPECT_NE(md.find("the doses were given once a day"), std::string::npos) << md;
  EXPECT_NE(md.find("Samples were taken every morning"), std::string::npos) << md;
}

// A bar chart on the left of the page and, on its right, a table without rules whose rows stand on the
// baselines of the chart's tick values: the tick values are the chart's, not a column of the table.
TEST(FigureRegionsTest, ATableBesideAChartTakesNoneOfItsTickValues) {
  std::string c =
      TextAt(72, 720, 10, "The yields of the plots by year, and the soil of each plot in spring.");
  c += "0 0 0 RG 1 w 120 450 m 120 520 l S 120 450 m 330 450 l S\n";
  for (int k = 1; k <= 4; ++k)
    c += "0.8 0.8 0.8 RG 0.5 w 120 " + std::to_string(450 + 16 * k) + " m 330 " +
         std::to_string(450 + 16 * k) + " l S\n";
  const int heights[] = {14, 26, 38, 50, 62};
  for (int k = 0; k < 5; ++k) {
    c += "0.2 0.4 0.8 rg " + std::to_string(132 + 40 * k) + " 450 26 " + std::to_string(heights[k]) +
         " re f\n";
  }
  c += "0 0 0 rg\n";
  for (int k = 0; k <= 4; ++k) c += TextAt(100, 447 + 16 * k, 8, std::to_string(10 * k));
  for (int k = 0; k < 5; ++k) c += TextAt(134 + 40 * k, 438, 8, std::to_string(2018 + k));
  const char* rows[][3] = {
      {"Plot", "pH", "Nitrogen"}, {"North", "6.2", "41"}, {"East", "5.8", "37"}, {"South", "7.1", "52"}};
  for (int r = 0; r < 4; ++r) {
    for (int col = 0; col < 3; ++col) c += TextAt(380 + 60 * col, 511 - 16 * r, 10, rows[r][col]);
  }
  c += TextAt(72, 380, 10,
              "After the survey the plots were sown with barley, which grew well in all of them.");
  auto parsed = ParseWithTextLayer(MakePdf({{c}}), {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::string table;
  int images = 0;
  for (const Block& b : parsed->pages[0].blocks) {
    images += b.type == BlockType::kImage;
    if (b.type == BlockType::kTable) table += b.content;
  }
  EXPECT_EQ(images, 1);
  EXPECT_NE(table.find("<td>Nitrogen</td>"), std::string::npos) << table;
  EXPECT_NE(table.find("<td>South</td><td>7.1</td><td>52</td>"), std::string::npos) << table;
  for (const char* tick : {">20<", ">30<", ">2019<"}) EXPECT_EQ(table.find(tick), std::string::npos) << table;
  const std::string md = WriteMarkdown(*parsed);
  EXPECT_EQ(md.find("2020"), std::string::npos) << md;
}

// A 600 x 800 page with ten bars (x 100..296, y 100..200) and no text.
PageContent TenBars() {
  PageContent page;
  page.page = {0, 0, 600, 800};
  for (int k = 0; k < 10; ++k) page.drawings.push_back({100.0 + 20 * k, 100, 116.0 + 20 * k, 200});
  return page;
}

// A line of size 8 at `box`.
TextLine Label(const std::string& text, const Rect& box) {
  TextLine l;
  l.box = box;
  l.text = text;
  l.font_size = 8;
  return l;
}

TEST(FigureRegionsTest, FewPathsOrLongLinesAreNoFigure) {
  PageContent page = TenBars();
  TextLine label = Label("12", {120, 150, 140, 158});
  EXPECT_EQ(FindVectorFigures(page, {label}, {}).size(), 1u);
  TextLine prose = label;
  prose.text = "a sentence of running text that is far longer than any axis label";
  EXPECT_TRUE(FindVectorFigures(page, {label, prose}, {}).empty());
  page.drawings.resize(5);
  EXPECT_TRUE(FindVectorFigures(page, {label}, {}).empty());
  // A table over the same place wins.
  page.drawings.resize(10, {100, 100, 110, 200});
  EXPECT_TRUE(FindVectorFigures(page, {label}, {{90, 90, 310, 210}}).empty());
}

TEST(FigureRegionsTest, AChartWithNoTextAmongItsBarsHasItsTickValuesBeside) {
  // Nothing written among the bars; values left of them.
  PageContent page = TenBars();
  auto tick = [](const std::string& text, double y) { return Label(text, {80, y, 95, y + 8}); };
  std::vector<TextLine> ticks = {tick("0", 196), tick("50%", 146), tick("1,000", 96)};
  EXPECT_TRUE(FindVectorFigures(page, {}, {}).empty());
  EXPECT_EQ(FindVectorFigures(page, ticks, {}).size(), 1u);
  // Two numbers beside a drawing, or words, are no axis.
  EXPECT_TRUE(FindVectorFigures(page, {ticks[0], ticks[1]}, {}).empty());
  EXPECT_TRUE(FindVectorFigures(page, {tick("Name", 196), tick("Date", 146), tick("Place", 96)}, {}).empty());
}

TEST(FigureRegionsTest, GridlinesAboveAChartsTallestBarArePartOfIt) {
  // Gridlines every 25 points from the bars' foot (y 200) up: those the bars (tops at y 100) cross touch
  // them; the two above (y 75 and 50) touch nothing but are the chart's, and so is the "200" beside the
  // top one. A rule 25 points above those, of another length, is not.
  PageContent page = TenBars();
  for (double y = 200; y >= 50; y -= 25) page.drawings.push_back({95, y, 300, y});
  page.drawings.push_back({60, 25, 400, 25});
  std::vector<TextLine> ticks;
  for (int k = 0; k <= 6; ++k)
    ticks.push_back(Label(std::to_string(50 * k), {75, 196.0 - 25 * k, 90, 204.0 - 25 * k}));
  std::vector<Rect> figures = FindVectorFigures(page, ticks, {});
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_DOUBLE_EQ(figures[0].y0, 50);
  EXPECT_TRUE(IsFigureLabel(ticks.back(), figures[0]));
  // Vertical gridlines right of a chart of bars set sideways likewise.
  page = PageContent();
  page.page = {0, 0, 600, 800};
  for (int k = 0; k < 10; ++k) page.drawings.push_back({100, 100.0 + 20 * k, 200, 116.0 + 20 * k});
  for (double x = 100; x <= 250; x += 25) page.drawings.push_back({x, 95, x, 300});
  figures = FindVectorFigures(page, {Label("12", {120, 150, 140, 158})}, {});
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_DOUBLE_EQ(figures[0].x1, 250);
}

TEST(FigureRegionsTest, OverAChartOnlyItsTitleIsALabel) {
  // A chart's title sits close over its plot and within its width; a short line of the text above it (an
  // affiliation under a paper's authors, reaching out past the chart's side) or set further up is none.
  const Rect chart{100, 100, 300, 200};
  EXPECT_TRUE(IsFigureLabel(Label("Revenue by year", {150, 88, 250, 96}), chart));
  EXPECT_FALSE(IsFigureLabel(Label("University of Edinburgh", {60, 88, 200, 96}), chart));
  EXPECT_FALSE(IsFigureLabel(Label("Revenue by year", {150, 78, 250, 86}), chart));
  EXPECT_TRUE(IsFigureLabel(Label("1,000", {75, 96, 95, 104}), chart));  // a tick value beside it
}

TEST(FigureRegionsTest, ALegendBesideAChartIsPartOfIt) {
  PageContent page = TenBars();
  TextLine label = Label("12", {120, 150, 140, 158});
  // Two keys 10 points right of the bars, each with its series' name after it.
  auto entry = [&](const std::string& name, double y) {
    page.drawings.push_back({310, y + 1, 316, y + 7});
    return Label(name, {320, y, 360, y + 8});
  };
  std::vector<TextLine> lines = {label, entry("Revenue", 140)};
  std::vector<Rect> one = FindVectorFigures(page, lines, {});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_DOUBLE_EQ(one[0].x1, 296);  // one key and its name are no legend
  lines.push_back(entry("Costs", 160));
  std::vector<Rect> two = FindVectorFigures(page, lines, {});
  ASSERT_EQ(two.size(), 1u);
  EXPECT_DOUBLE_EQ(two[0].x1, 360);
  EXPECT_TRUE(IsFigureLabel(lines[1], two[0]));
  EXPECT_TRUE(IsFigureLabel(lines[2], two[0]));
}

}  // namespace
}  // namespace mineru::document
