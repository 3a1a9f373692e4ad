#include "document/markdown_metrics.h"

#include <gtest/gtest.h>

namespace mineru::document {
namespace {

TEST(MarkdownMetricsTest, StripMarkdown) {
  EXPECT_EQ(StripMarkdown("## Title\n\n- item **bold**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
            "Title item bold a b 1 2");
  EXPECT_EQ(StripMarkdown("![](images/x.jpg)\n<table><tr><td>x</td></tr></table>"), "x");
  EXPECT_EQ(StripMarkdown("see [the docs](http://x) and $x^2$ <!-- page 2 -->"), "see the docs and x^2");
}

TEST(MarkdownMetricsTest, EditDistance) {
  EXPECT_DOUBLE_EQ(NormalizedEditDistance("", ""), 0);
  EXPECT_DOUBLE_EQ(NormalizedEditDistance("abc", ""), 1);
  EXPECT_DOUBLE_EQ(NormalizedEditDistance("kitten", "sitting"), 3.0 / 7.0);
  EXPECT_DOUBLE_EQ(NormalizedEditDistance("\xC3\xA9t\xC3\xA9", "ete"), 2.0 / 3.0);  // code points, not bytes
}

TEST(MarkdownMetricsTest, Headings) {
  HeadingScore s =
      ScoreHeadings("# Intro\n\n## Methods!\n\n## Extra\n", "## Intro\n\n## Methods\n\n## Results\n");
  EXPECT_EQ(s.matched, 2);
  EXPECT_EQ(s.predicted, 3);
  EXPECT_EQ(s.reference, 3);
  EXPECT_NEAR(s.f1(), 2.0 / 3.0, 1e-9);
  EXPECT_EQ(ExtractHeadings("#hashtag\n####### seven\n# Ok"), (std::vector<std::string>{"ok"}));
}

TEST(MarkdownMetricsTest, TableCells) {
  std::string ref = "| Name | Value |\n|---|---|\n| a | 1 |\n";
  EXPECT_DOUBLE_EQ(
      TableCellAccuracy("<table><tr><td>Name</td><td>Value</td></tr><tr><td>a</td><td>2</td></tr></table>",
                        ref),
      0.75);
  EXPECT_DOUBLE_EQ(TableCellAccuracy("no table", ref), 0);
  EXPECT_DOUBLE_EQ(TableCellAccuracy("x", "no table here"), -1);
}

TEST(MarkdownMetricsTest, DisplayEquationsMatchWhateverTheirSpacing) {
  const std::string ref = "Text.\n\n$$\n\\frac{1}{N} \\sum_{i=1}^{N} x_i \\tag{1}\n$$\n\n$$\nE = mc^2\n$$\n";
  const std::string pred = "Text.\n\n$$\n\\frac{1}{N}\\sum_{i=1}^{N}x_i \\tag{1}\n$$\n\n$$\nE = m c\n$$\n";
  EXPECT_EQ(ExtractDisplayEquations(ref),
            (std::vector<std::string>{"\\frac{1}{N}\\sum_{i=1}^{N}x_i\\tag{1}", "E=mc^2"}));
  const EquationScore s = ScoreDisplayEquations(pred, ref);
  EXPECT_EQ(s.matched, 1);
  EXPECT_EQ(s.predicted, 2);
  EXPECT_EQ(s.reference, 2);
  EXPECT_DOUBLE_EQ(s.recall(), 0.5);
}

TEST(MarkdownMetricsTest, InlineFormulasMatchWhateverTheirSpacing) {
  const std::string ref = "Let $x_i \\in S$ and $y$ be.\n\n$$\nE = mc^2\n$$\n\nSo $a + b$.\n";
  const std::string pred = "Let $x_i\\in S$ and y be.\n\n$$\nE = mc^2\n$$\n\nSo $a+b$ and $c$.\n";
  // (The display's LaTeX is no inline formula.)
  EXPECT_EQ(ExtractInlineFormulas(ref), (std::vector<std::string>{"x_i\\inS", "y", "a+b"}));
  const EquationScore s = ScoreInlineFormulas(pred, ref);
  EXPECT_EQ(s.matched, 2);
  EXPECT_EQ(s.predicted, 3);
  EXPECT_EQ(s.reference, 3);
}

}  // namespace
}  // namespace mineru::document
