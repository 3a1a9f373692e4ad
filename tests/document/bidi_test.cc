#include "document/bidi.h"

#include <gtest/gtest.h>

#include <string>

namespace mineru::document {
namespace {

// Glyphs of a line as it looks, left to right, 5 pt each from x = 100 (a space is a drawn space glyph).
std::vector<TextChar> Drawn(const std::u32string& visual) {
  std::vector<TextChar> chars;
  for (size_t i = 0; i < visual.size(); ++i) {
    double x0 = 100 + 5.0 * static_cast<double>(i);
    chars.push_back({visual[i], {x0, 100, x0 + 5, 110}});
  }
  return chars;
}

std::string Text(const std::vector<TextChar>& chars) {
  std::string out;
  for (const TextChar& c : chars) AppendUtf8(out, c.rune);
  return out;
}

std::string Utf8(const std::u32string& s) {
  std::string out;
  for (char32_t c : s) AppendUtf8(out, c);
  return out;
}

TEST(BidiTest, ScriptClasses) {
  EXPECT_TRUE(IsRtlChar(U'\u05D0'));  // Hebrew alef
  EXPECT_TRUE(IsRtlChar(U'\u0627'));  // Arabic alef
  EXPECT_TRUE(IsRtlChar(U'\uFEFB'));  // Arabic presentation form
  EXPECT_FALSE(IsRtlChar(U'a'));
  EXPECT_FALSE(IsRtlChar(U'1'));
  EXPECT_TRUE(IsLtrStrong(U'a'));
  EXPECT_TRUE(IsLtrStrong(U'\u4E2D'));
  EXPECT_FALSE(IsLtrStrong(U'\u0627'));
  EXPECT_FALSE(IsLtrStrong(U'7'));
}

// Logical Hebrew "אב גד הו" (three words) as it looks: "וה דג בא".
const std::u32string kVisualHebrew = U"\u05D5\u05D4 \u05D3\u05D2 \u05D1\u05D0";
const std::u32string kLogicalHebrew = U"\u05D0\u05D1 \u05D2\u05D3 \u05D4\u05D5";

TEST(BidiTest, OrderOfWritingDoesNotMatterOnlyPlace) {
  std::vector<TextChar> chars = Drawn(kVisualHebrew);
  EXPECT_EQ(Text(RightToLeftLogical(chars, 1)), Utf8(kLogicalHebrew));
  // The same glyphs written in logical order (right to left),
  std::vector<TextChar> reversed(chars.rbegin(), chars.rend());
  EXPECT_EQ(Text(RightToLeftLogical(reversed, 1)), Utf8(kLogicalHebrew));
  // and as two runs, each drawn left to right, the line's right half first (a word processor's output:
  // reading a line's runs backwards by x interleaved its halves).
  std::vector<TextChar> runs(chars.begin() + 3, chars.end());
  runs.insert(runs.end(), chars.begin(), chars.begin() + 3);
  EXPECT_EQ(Text(RightToLeftLogical(runs, 1)), Utf8(kLogicalHebrew));
}

TEST(BidiTest, FullStopWrittenLastEndsTheSentence) {
  // ".וה דג בא" as it looks, the full stop (leftmost) written after the words.
  std::vector<TextChar> chars = Drawn(U"." + kVisualHebrew);
  std::rotate(chars.begin(), chars.begin() + 1, chars.end());
  EXPECT_EQ(Text(RightToLeftLogical(chars, 1)), Utf8(kLogicalHebrew + U"."));
}

TEST(BidiTest, LigatureLettersAndMarksStayWithTheirGlyph) {
  // Arabic "تلا" (ta, lam, alef) drawn as ta and a lam-alef ligature glyph whose ToUnicode entry is
  // "لا": the alef comes with no width at the ligature's right edge. Drawn left to right: the
  // ligature, then ta.
  std::vector<TextChar> chars = {{U'\u0644', {100, 100, 107, 110}},
                                 {U'\u0627', {107, 100, 107, 110}},
                                 {U'\u062A', {107, 100, 112, 110}}};
  EXPECT_EQ(Text(RightToLeftLogical(chars, 1)), Utf8(U"\u062A\u0644\u0627"));
  // "بناءً" (ba, nun, alef, hamza, tanwin fath): the mark written before the hamza it is drawn on.
  std::vector<TextChar> word = {{U'\u064B', {104, 100, 104, 110}},
                                {U'\u0621', {100, 100, 105, 110}},
                                {U'\u0627', {105, 100, 108, 110}},
                                {U'\u0646', {108, 100, 111, 110}},
                                {U'\u0628', {111, 100, 114, 110}}};
  EXPECT_EQ(Text(RightToLeftLogical(word, 1)), Utf8(U"\u0628\u0646\u0627\u0621\u064B"));
}

TEST(BidiTest, NumbersAndLatinReadLeftToRight) {
  // "تاريخ 1403/09/19" as it looks: the date left of the word.
  std::vector<TextChar> date = Drawn(U"1403/09/19 \u062E\u06CC\u0631\u0627\u062A");
  EXPECT_EQ(Text(RightToLeftLogical(date, 1)), Utf8(U"\u062A\u0627\u0631\u06CC\u062E 1403/09/19"));
  // A percent sign goes with its number on whichever side it is drawn: "%50" and "5%" stay as they look.
  EXPECT_EQ(Text(RightToLeftLogical(Drawn(U"\u0628 %50 \u0627"), 1)), Utf8(U"\u0627 %50 \u0628"));
  EXPECT_EQ(Text(RightToLeftLogical(Drawn(U"\u0628 5% \u0627"), 1)), Utf8(U"\u0627 5% \u0628"));
  // Arabic-Indic digits too, and a Latin phrase keeps its word order.
  EXPECT_EQ(Text(RightToLeftLogical(Drawn(U"\u0661\u0662 \u0628"), 1)), Utf8(U"\u0628 \u0661\u0662"));
  EXPECT_EQ(Text(RightToLeftLogical(Drawn(U"R and Python \u0628"), 1)), Utf8(U"\u0628 R and Python"));
}

TEST(BidiTest, LatinAndArabicLettersThatTouchAreTwoWords) {
  // A word processor draws the space between "Python" and the Arabic word after it on Python's other
  // side; no word mixes the scripts. A year with its letter ("2023م") is one word.
  EXPECT_EQ(Text(RightToLeftLogical(Drawn(U"\u0646\u0645Python \u0648"), 1)),
            Utf8(U"\u0648 Python \u0645\u0646"));
  EXPECT_EQ(Text(RightToLeftLogical(Drawn(U"\u06452023"), 1)), Utf8(U"2023\u0645"));
}

TEST(BidiTest, SpaceWhereGlyphsStandApart) {
  // Two words with a gap of 4 pt and no space glyph.
  std::vector<TextChar> chars = {{U'\u05D1', {100, 100, 105, 110}}, {U'\u05D0', {109, 100, 114, 110}}};
  EXPECT_EQ(Text(RightToLeftLogical(chars, 1)), Utf8(U"\u05D0 \u05D1"));
  EXPECT_EQ(Text(RightToLeftLogical(chars, 5)), Utf8(U"\u05D0\u05D1"));
  EXPECT_TRUE(RightToLeftLogical({}, 1).empty());
}

TEST(BidiTest, ALineTurnedOnItsSideStaysAsWritten) {
  // Glyphs stacked down the page (a label rotated by 90 degrees), each a little right of the one before.
  std::vector<TextChar> chars = {{U'\u05D0', {100, 100, 110, 105}},
                                 {U'\u05D1', {101, 105, 111, 110}},
                                 {U'\u05D2', {102, 110, 112, 115}}};
  EXPECT_EQ(Text(RightToLeftLogical(chars, 1)), Utf8(U"\u05D0\u05D1\u05D2"));
}

}  // namespace
}  // namespace mineru::document
