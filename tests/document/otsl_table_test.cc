#include <gtest/gtest.h>

#include "document/model_output_parser.h"

namespace mineru::document {
namespace {

TEST(OtslTableTest, PlainGrid) {
  EXPECT_EQ(OtslToHtml("<fcel>a<fcel>b<nl><fcel>c<ecel><nl>"),
            "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td></td></tr></table>");
}

TEST(OtslTableTest, ColspanFromLcel) {
  EXPECT_EQ(OtslToHtml("<fcel>head<lcel><lcel><nl><fcel>1<fcel>2<fcel>3<nl>"),
            "<table><tr><td colspan=\"3\">head</td></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>");
}

TEST(OtslTableTest, RowspanFromUcel) {
  EXPECT_EQ(OtslToHtml("<fcel>k<fcel>v1<nl><ucel><fcel>v2<nl>"),
            "<table><tr><td rowspan=\"2\">k</td><td>v1</td></tr><tr><td>v2</td></tr></table>");
}

TEST(OtslTableTest, TwoByTwoSpanWithXcel) {
  EXPECT_EQ(OtslToHtml("<fcel>big<lcel><fcel>x<nl><ucel><xcel><fcel>y<nl><fcel>p<fcel>q<fcel>r<nl>"),
            "<table><tr><td rowspan=\"2\" colspan=\"2\">big</td><td>x</td></tr><tr><td>y</td></tr>"
            "<tr><td>p</td><td>q</td><td>r</td></tr></table>");
}

TEST(OtslTableTest, NotOtslPassesThrough) {
  EXPECT_EQ(OtslToHtml("<table><tr><td>x</td></tr></table>"), "<table><tr><td>x</td></tr></table>");
  EXPECT_EQ(OtslToHtml("just text"), "just text");
}

TEST(OtslTableTest, CellTextIsTrimmedAndEscaped) {
  EXPECT_EQ(OtslToHtml("<fcel> a < b & c <nl>"), "<table><tr><td>a &lt; b &amp; c</td></tr></table>");
}

TEST(OtslTableTest, RaggedRowsArePaddedAndOrphansKept) {
  // The second row is short; an <lcel> that starts a row has nothing to continue.
  EXPECT_EQ(OtslToHtml("<fcel>a<fcel>b<nl><lcel><nl>"),
            "<table><tr><td>a</td><td>b</td></tr><tr><td></td><td></td></tr></table>");
}

TEST(OtslTableTest, MissingFinalNewlineStillClosesTheRow) {
  EXPECT_EQ(OtslToHtml("<fcel>a<fcel>b"), "<table><tr><td>a</td><td>b</td></tr></table>");
}

}  // namespace
}  // namespace mineru::document
