#include "document/text_lines.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "document/aligned_table.h"
#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"
#include "tests/document/line_builder.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

// A fragment from code points laid out left to right (visual order), 5 pt per character.
TextLine Visual(const std::u32string& runes, double x, bool rtl) {
  TextLine f;
  for (size_t i = 0; i < runes.size(); ++i) {
    double x0 = x + 5.0 * static_cast<double>(i);
    f.chars.push_back({runes[i], {x0, 100, x0 + 5, 110}});
  }
  f.box = {x, 100, x + 5.0 * static_cast<double>(runes.size()), 110};
  f.font_size = 10;
  f.rtl = rtl;
  return f;
}

TEST(TextLinesTest, RomanNumeralsWrittenTheUsualWayInOneCase) {
  EXPECT_EQ(RomanNumeralValue("xxv"), 25);
  EXPECT_EQ(RomanNumeralValue("XIV"), 14);
  EXPECT_EQ(RomanNumeralValue("iv"), 4);
  EXPECT_EQ(RomanNumeralValue("MCMXCIX"), 1999);
  for (const char* not_one : {"", "iiii", "vx", "Iv", "ill", "IC", "x1", "MMMM"}) {
    EXPECT_EQ(RomanNumeralValue(not_one), 0) << not_one;
  }
}

TEST(TextLinesTest, UniformAdvancesMarkAMonospacedLine) {
  // Every character 6 pt wide, narrow glyphs included: a code font.
  TextLine code = testing::Line("CALL proc(1);", 50, 100, 12);
  EXPECT_EQ(MeasureAdvances(code.chars), Advances::kUniform);
  // Narrow glyphs narrower than the others: a proportional font.
  EXPECT_EQ(MeasureAdvances(testing::InFont(code, "Helvetica").chars), Advances::kVaried);
  // Nothing to compare: capitals only, or too short.
  EXPECT_EQ(MeasureAdvances(testing::Line("END CASE", 50, 100).chars), Advances::kUnknown);
  EXPECT_EQ(MeasureAdvances(testing::Line("li x", 50, 100).chars), Advances::kUnknown);
}

TEST(TextLinesTest, LeftToRightFragmentsJoinInXOrderWithSpaces) {
  std::vector<TextLine> frags = {Visual(U"world", 200, false), Visual(U"Hello", 100, false)};
  TextLine line = MergeFragments(frags);
  EXPECT_FALSE(line.rtl);
  EXPECT_EQ(line.text, "Hello world");
  EXPECT_DOUBLE_EQ(line.box.x0, 100);
  EXPECT_DOUBLE_EQ(line.box.x1, 225);
}

TEST(TextLinesTest, VisualRightToLeftBecomesLogical) {
  // Logical Hebrew "אבג 12 דה": shown visually (left to right) as "הד 12 גבא".
  std::u32string visual = U"\u05D4\u05D3 12 \u05D2\u05D1\u05D0";
  TextLine line = MergeFragments({Visual(visual, 100, true)});
  EXPECT_TRUE(line.rtl);
  std::string expected;
  for (char32_t c : std::u32string(U"\u05D0\u05D1\u05D2 12 \u05D3\u05D4")) AppendUtf8(expected, c);
  EXPECT_EQ(line.text, expected);
}

TEST(TextLinesTest, RightToLeftLineWithLatinFragment) {
  // Arabic words on both sides of a separate Latin fragment "R": read right to left.
  TextLine right = Visual(U"\u0628\u0627", 300, true);  // visual "ba" -> logical "اب"
  TextLine latin = Visual(U"R", 250, false);
  TextLine left = Visual(U"\u062C\u062F", 200, true);
  TextLine line = MergeFragments({left, latin, right});
  EXPECT_TRUE(line.rtl);
  std::string expected;
  for (char32_t c : std::u32string(U"\u0627\u0628 R \u062F\u062C")) AppendUtf8(expected, c);
  EXPECT_EQ(line.text, expected);
}

TEST(TextLinesTest, Utf8Encoding) {
  std::string s;
  AppendUtf8(s, U'A');
  AppendUtf8(s, U'\u00E9');
  AppendUtf8(s, U'\u20AC');
  AppendUtf8(s, U'\U0001F600');
  EXPECT_EQ(s, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

// Helvetica whose codes 1-4 draw the ligature glyphs fl, fi, ffi and ff.
constexpr char kLigatureFont[] =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /BaseEncoding "
    "/WinAnsiEncoding /Differences [1 /fl /fi /ffi /ff] >> >>";

std::string TextOfPage(const std::string& content) {
  std::vector<uint8_t> pdf = testing::MakePdfWithFont(content, kLigatureFont);
  auto doc = PdfDocument::Open(pdf, {});
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  if (!doc.ok()) return {};
  auto page = ExtractPageContent(**doc, 0);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  std::string text;
  for (const TextLine& l : page->lines) text += (text.empty() ? "" : "\n") + l.text;
  return text;
}

TEST(TextLinesTest, LigaturesBecomeTheirLetters) {
  EXPECT_EQ(TextOfPage("BT /F3 12 Tf 72 700 Td (In\\001ammation, \\002nancial o\\003ce, o\\004 the) Tj ET"),
            "Inflammation, financial office, off the");
}

TEST(TextLinesTest, NoSpaceAfterAnFiOrFlLigatureDrawnWiderThanItsGlyph) {
  // The PDF moves the pen further than the ligature glyph is wide (as a font whose widths disagree with
  // the PDF's does): the gap is no word break before a lower-case letter, whether MuPDF reads it as a
  // space (0.4 em) or as the start of a new piece of the line (1 em).
  EXPECT_EQ(TextOfPage("BT /F3 12 Tf 72 700 Td [(In\\001) -400 (ammopharmacology and) -400 (\\001) -400 "
                       "(urbiprofen)] TJ ET"),
            "Inflammopharmacology and flurbiprofen");
  EXPECT_EQ(TextOfPage("BT /F3 12 Tf 72 700 Td [(In\\001) -1000 (ammation)] TJ ET"), "Inflammation");
  // A real word break stays: before a capital or a digit, and after an ff ligature ("off the").
  EXPECT_EQ(TextOfPage("BT /F3 12 Tf 72 700 Td [(Sci-\\002) -400 (Fiction o\\004) -400 (the \\001) -400 "
                       "(2)] TJ ET"),
            "Sci-fi Fiction off the fl 2");
}

// Helvetica whose ToUnicode map gives "x" and "y" as Unicode's math italic letters, as a word processor's
// equations in a math font come.
constexpr char kMathItalicFont[] =
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 7 0 R >>";
const std::vector<std::string> kMathItalicObjects = {
    "<< /Length 182 >>\nstream\n/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
    "1 begincodespacerange <00> <FF> endcodespacerange 2 beginbfchar <78> <D835DC65> <79> <D835DC66> "
    "endbfchar endcmap end end\nendstream"};

TEST(TextLinesTest, MathItalicLettersReadAsPlainLetters) {
  std::vector<uint8_t> pdf =
      testing::MakePdfWithFont("BT /F3 12 Tf 72 700 Td (x + y) Tj ET", kMathItalicFont, kMathItalicObjects);
  auto doc = PdfDocument::Open(pdf, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  auto page = ExtractPageContent(**doc, 0);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->lines.size(), 1u);
  EXPECT_EQ(page->lines[0].text, "x + y");
}

// A Type3 bullet whose FontBBox (and so, for MuPDF, its ascender and descender) spans 2.3 em, as TeX's
// symbol font draws the bullets of texinfo and LaTeX lists.
constexpr char kTallBulletFont[] =
    "<< /Type /Font /Subtype /Type3 /FontBBox [0 -800 1000 1500] /FontMatrix [0.001 0 0 0.001 0 0] "
    "/CharProcs << /bullet 7 0 R >> /Encoding << /Type /Encoding /Differences [149 /bullet] >> "
    "/FirstChar 149 /LastChar 149 /Widths [500] /ToUnicode 8 0 R >>";
const std::vector<std::string> kTallBulletObjects = {
    "<< /Length 42 >>\nstream\n500 0 d0 100 200 m 400 200 l 400 500 l h f\nendstream",
    "<< /Length 162 >>\nstream\n/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
    "1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <95> <2022> endbfchar endcmap "
    "end end\nendstream"};

TEST(TextLinesTest, AGlyphWithTallFontMetricsKeepsItsLineToTheTextHeight) {
  // An 11 pt list item over two lines 13.2 pt apart, its bullet in the tall font.
  std::string content = "BT /F3 11 Tf 100 700 Td (\225) Tj ET\n" +
                        testing::TextAt(112, 700, 11, "First line of the item") +
                        testing::TextAt(112, 686.8, 11, "and its second line.");
  std::vector<uint8_t> pdf = testing::MakePdfWithFont(content, kTallBulletFont, kTallBulletObjects);
  auto doc = PdfDocument::Open(pdf, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  auto page = ExtractPageContent(**doc, 0);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->lines.size(), 2u);
  const TextLine& first = page->lines[0];
  const TextLine& second = page->lines[1];
  EXPECT_EQ(first.text, "\u2022 First line of the item");
  // As tall as the text beside the bullet (the line under it has the same text font and size).
  EXPECT_NEAR(first.box.height(), second.box.height(), 0.05 * 11);
  EXPECT_GT(first.box.y1, 792 - 700);   // still reaches below the baseline (y grows down)
  EXPECT_DOUBLE_EQ(first.box.x0, 100);  // the bullet still counts across

  auto parsed = ParseWithTextLayer(pdf, {}, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(WriteMarkdown(*parsed), "- First line of the item and its second line.\n");
}

TEST(TextLinesTest, ALineCountsItsCharactersPerFace) {
  std::vector<uint8_t> pdf =
      testing::MakePdf({{"BT /F2 12 Tf 72 700 Td (Note:) Tj /F1 12 Tf ( read the rest) Tj ET\n" +
                         testing::TextAt(72, 680, 12, "x")}});
  auto doc = PdfDocument::Open(pdf, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  auto page = ExtractPageContent(**doc, 0);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->lines.size(), 2u);
  EXPECT_EQ(page->lines[0].text, "Note: read the rest");
  std::map<std::string, int> faces = {{"Helvetica", 11}, {"Helvetica/b", 5}};
  EXPECT_EQ(page->lines[0].faces, faces);
}

TEST(TextLinesTest, TextSetLaterFurtherLeftOnTheBaselineTakesItsPlaceInTheLine) {
  // A table's middle cell drawn first, then the first and last cells in one run whose gutter is filled
  // with spaces (as groff's tbl sets a row): each cell's text apart, in x order, the spaces
  // no text laid over the middle cell.
  const std::string run = "Staff" + std::string(70, ' ') + "People team";  // spaces to x 371
  std::vector<uint8_t> pdf = testing::MakePdf(
      {{"BT /F1 10 Tf 209 700 Td (Key staff leave for posts) Tj -53 0 Td (" + run + ") Tj ET\n"}});
  auto doc = PdfDocument::Open(pdf, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  auto page = ExtractPageContent(**doc, 0);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  std::vector<TextLine> lines = page->lines;
  std::ranges::sort(lines, {}, [](const TextLine& l) { return l.box.x0; });
  std::string cells;
  for (const TextLine& l : lines) cells += l.text + "|";
  EXPECT_EQ(cells, "Staff|Key staff leave for posts|People team|");
}

TEST(TextLinesTest, LinesOfMixedFacesShareOneThatHasAQuarterOfEach) {
  TextLine a, b;
  a.faces = {{"Times", 60}, {"Courier", 40}};
  b.faces = {{"Courier", 70}, {"Times", 30}};
  EXPECT_TRUE(ShareFace(a, b));
  a.faces = {{"Times", 80}, {"Courier", 20}};
  b.faces = {{"Courier", 80}, {"Times", 20}};  // each face a fifth of one of them: not enough
  EXPECT_FALSE(ShareFace(a, b));
  b.faces = {{"Courier", 90}, {"Times", 10}};  // nearly all code: a line of code
  EXPECT_FALSE(ShareFace(b, a));
  a.faces = {{"Times", 50}, {"Times/i", 50}};
  b.faces = {{"Courier", 50}, {"Times/b", 50}};
  EXPECT_FALSE(ShareFace(a, b));
}

std::vector<std::string> LineTexts(const std::vector<uint8_t>& pdf) {
  auto doc = PdfDocument::Open(pdf, {});
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  if (!doc.ok()) return {};
  auto page = ExtractPageContent(**doc, 0);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  std::vector<std::string> texts;
  for (const TextLine& l : page->lines) texts.push_back(l.text);
  return texts;
}

TEST(TextLinesTest, ARunInLabelSetWideBeforeItsParagraphIsPartOfTheLine) {
  // A justified caption: "Table 1." then 1.6 em to its text; the caption's next line spans both.
  const std::string label = testing::TextAt(72, 700, 9, "Table 1.", true);
  const std::string rest =
      testing::TextAt(122, 700, 9, "HPO performed in OTSL and HTML representation on the");
  const std::string next = testing::TextAt(
      72, 689, 9, "transformer-based TableFormer architecture, trained only on PubTabNet data.");
  EXPECT_EQ(LineTexts(testing::MakePdf({{label + rest + next}})),
            (std::vector<std::string>{
                "Table 1. HPO performed in OTSL and HTML representation on the",
                "transformer-based TableFormer architecture, trained only on PubTabNet data."}));
  // A row label of a table has cells under it, not a line: the row's cells stay apart.
  const std::string cells = testing::TextAt(72, 689, 9, "12.5") + testing::TextAt(122, 689, 9, "34.0");
  EXPECT_EQ(LineTexts(testing::MakePdf({{label + rest + cells}})),
            (std::vector<std::string>{"HPO performed in OTSL and HTML representation on the", "Table 1.",
                                      "12.5", "34.0"}));
  // Without the period it is no label ("Total" and a cell set wide on a line over a spanning note).
  const std::string total = testing::TextAt(72, 700, 9, "Total", true);
  EXPECT_EQ(LineTexts(testing::MakePdf({{total + rest + next}})).size(), 3u);
}

TEST(TextLinesTest, AuthorsMarkedWithRaisedIndicesAreANameList) {
  // 12 pt names, each with its affiliation's index set in 8 pt 4 pt up; a title with commas and "and"
  // but no marks, names with one mark, and words that are not names are none.
  auto line_of = [](const std::string& content) {
    const std::vector<uint8_t> pdf = testing::MakePdf({{content}});  // the document reads it in place
    auto doc = PdfDocument::Open(pdf, {});
    EXPECT_TRUE(doc.ok());
    auto page = ExtractPageContent(**doc, 0);
    EXPECT_TRUE(page.ok() && page->lines.size() == 1);
    return page.ok() && !page->lines.empty() ? page->lines.front() : TextLine{};
  };
  const std::string authors =
      testing::TextAt(100.0, 700, 12, "Marco Silva") + testing::TextAt(163.0, 704, 8, "1") +
      testing::TextAt(167.7, 700, 12, ", Tomas J. Huang") + testing::TextAt(262.7, 704, 8, "2") +
      testing::TextAt(267.5, 700, 12, " and Lena Weber") + testing::TextAt(359.8, 704, 8, "1");
  EXPECT_TRUE(IsMarkedNameList(line_of(authors)));
  const std::string one_mark = testing::TextAt(100.0, 700, 12, "Marco Silva") +
                               testing::TextAt(163.0, 704, 8, "1") +
                               testing::TextAt(167.7, 700, 12, ", Tomas Huang");
  EXPECT_FALSE(IsMarkedNameList(line_of(one_mark)));
  EXPECT_FALSE(IsMarkedNameList(
      line_of(testing::TextAt(100, 700, 12, "Deep Learning, Neural Networks and Computer Vision"))));
  const std::string words =
      testing::TextAt(100.0, 700, 12, "Results for models") + testing::TextAt(199.7, 704, 8, "1") +
      testing::TextAt(204.4, 700, 12, ", and more") + testing::TextAt(262.1, 704, 8, "2");
  EXPECT_FALSE(IsMarkedNameList(line_of(words)));
}

TEST(TextLinesTest, AHeadingInTheNextColumnLevelWithAParagraphsLineIsALineOfItsOwn) {
  // A caption of two lines in the left column (x 56 to 287); the right column's heading, 14 pt and
  // bold, 10 pt across the gutter, level with the caption's last line, drawn before it (the right
  // column's text follows the left column's in the file).
  const std::string first =
      testing::TextAt(56, 700, 10, "Table 3: Each general sufficient likelihood can affine");
  const std::string caption =
      first + testing::TextAt(56, 688, 10, "parison workflow general it distribution affine, and th");
  const std::string heading = testing::TextAt(297, 688, 14, "References", true);
  EXPECT_EQ(LineTexts(testing::MakePdf({{heading + caption}})),
            (std::vector<std::string>{"Table 3: Each general sufficient likelihood can affine", "References",
                                      "parison workflow general it distribution affine, and th"}));
  // Words set 0.8 em on in the paragraph's own line (inside its lines' extent) are the rest of that line.
  const std::string wide = first + testing::TextAt(56, 688, 10, "parison workflow") +
                           testing::TextAt(138.5, 688, 10, "general it.");
  EXPECT_EQ(LineTexts(testing::MakePdf({{wide}})).back(), "parison workflow general it.");
  // An item's label hanging before its text, drawn apart from it, is still the start of its first line.
  const std::string item =
      testing::TextAt(90, 650, 10, "The first line of an item set under its label") +
      testing::TextAt(90, 638, 10, "and the next line of the item.") + testing::TextAt(72, 650, 10, "3.") +
      testing::TextAt(90, 626, 10, "A reference with a label") +
      testing::TextAt(90, 614, 10, "hanging before it.") + testing::TextAt(68, 626, 10, "[12]");
  EXPECT_EQ(LineTexts(testing::MakePdf({{item}})),
            (std::vector<std::string>{"3. The first line of an item set under its label",
                                      "and the next line of the item.", "[12] A reference with a label",
                                      "hanging before it."}));
}

// The width of `text` set alone at `size` (its line's box).
double WidthOf(const std::string& text, double size) {
  const std::vector<uint8_t> bytes = testing::MakePdf({{testing::TextAt(72, 700, size, text)}});
  auto doc = PdfDocument::Open(bytes, {});  // (reads the bytes in place)
  EXPECT_TRUE(doc.ok());
  auto page = ExtractPageContent(**doc, 0);
  return page.ok() && !page->lines.empty() ? page->lines[0].box.width() : 0;
}

TEST(TextLinesTest, ALineOverfullIntoTheNextColumnStaysOutOfThatColumnsLine) {
  // Two columns of three lines, the left one's drawn first; its middle line runs past its measure into
  // the gutter and touches the right column's line on its baseline by 0.7 points.
  const std::string overfull = "the middle line runs on, overfull";
  const double right = 56 + WidthOf(overfull, 10) - 0.7;
  const std::string content = testing::TextAt(56, 700, 10, "the top line of the left column") +
                              testing::TextAt(56, 688, 10, overfull) +
                              testing::TextAt(56, 676, 10, "the left column's last line") +
                              testing::TextAt(right, 700, 10, "first line at the right") +
                              testing::TextAt(right, 688, 10, "second line at the right") +
                              testing::TextAt(right, 676, 10, "third line at the right");
  const std::vector<std::string> texts = LineTexts(testing::MakePdf({{content}}));
  EXPECT_NE(std::find(texts.begin(), texts.end(), overfull), texts.end()) << ::testing::PrintToString(texts);
  EXPECT_NE(std::find(texts.begin(), texts.end(), "second line at the right"), texts.end())
      << ::testing::PrintToString(texts);
}

TEST(TextLinesTest, AJustifiedLineWhoseWordSpacesAreWideIsOneLine) {
  // An abstract's first line, indented: four words spread 1.3 em apart to the measure its paragraph's
  // other lines fill (two of them, whole), in one text object as TeX sets it (each space a kern).
  const std::string line1 = "across estimate parameter these affine most training";
  const std::string line2 = "training most affine these parameter estimate across";  // as wide
  const std::string line3 = "relative transform.";
  const double right = 56 + WidthOf(line1, 10);
  const std::vector<std::string> words{"Abstract", "evaluation", "figuratively", "thresholding"};
  double used = 0;
  for (const std::string& w : words) used += WidthOf(w, 10);
  const double gap = (right - 66 - used) / static_cast<double>(words.size() - 1);
  ASSERT_GT(gap, 12);  // wider than a word space of a line ever joins
  std::string spread = "[";
  for (const std::string& w : words) spread += "(" + w + ") " + std::to_string(-100 * gap) + " ";
  auto paragraph = [&](const std::string& under) {
    return "BT /F1 10 Tf 66 700 Td " + spread + "] TJ -10 -11 Td " + under + " ET\n";
  };
  const std::string prose = "(" + line1 + ") Tj 0 -11 Td (" + line2 + ") Tj 0 -11 Td (" + line3 + ") Tj";
  EXPECT_EQ(LineTexts(testing::MakePdf({{paragraph(prose)}})).front(),
            "Abstract evaluation figuratively thresholding");
  // The same words over a table's rows (no line of the block spans it whole) stay cells.
  const std::string rows = "(12.5) Tj 150 0 Td (34.0) Tj -150 -11 Td (18.1) Tj 150 0 Td (40.2) Tj";
  EXPECT_EQ(LineTexts(testing::MakePdf({{paragraph(rows)}})).front(), "Abstract");
}

TEST(TextLinesTest, ALineNumberInTheMarginIsNoPartOfItsLine) {
  // Line numbers set in 7 pt one em of the 10 pt text before and after its lines; a footnote mark set
  // small against its word, and a number of the text's size, stay in their lines.
  const std::string content =
      testing::TextAt(54.2, 700, 7, "12") + testing::TextAt(72, 700, 10, "Text of a line.") +
      testing::TextAt(72, 686, 10, "Another line of text") + testing::TextAt(165.4, 686, 7, "13") +
      testing::TextAt(72, 672, 10, "A note") + testing::TextAt(101, 676, 6, "3") +
      testing::TextAt(72, 658, 10, "Total") + testing::TextAt(105, 658, 10, "14");
  EXPECT_EQ(LineTexts(testing::MakePdf({{content}})),
            (std::vector<std::string>{"Text of a line.", "12", "Another line of text", "13", "A note3",
                                      "Total 14"}));
}

TEST(TextLinesTest, LetterSpacingIsNoWordSpace) {
  // A heading tracked by 0.3 em (MuPDF puts a space between every letter), a line tracked by 0.12 em, and
  // a line set solid: the words stay words and the real spaces stay.
  const std::string content =
      "BT /F1 10 Tf 72 700 Td 3 Tc (Annual Report 2022) Tj ET\n"
      "BT /F1 10 Tf 72 680 Td 1.2 Tc (Letter spaced body text with words.) Tj ET\n" +
      testing::TextAt(72, 660, 10, "Normal text set solid, with 12.5 and 1,234.");
  EXPECT_EQ(LineTexts(testing::MakePdf({{content}})),
            (std::vector<std::string>{"Annual Report 2022", "Letter spaced body text with words.",
                                      "Normal text set solid, with 12.5 and 1,234."}));
}

TEST(TextLinesTest, AGlyphDrawnOverItselfIsOneGlyph) {
  // Each letter printed twice, the second copy 0.05 em to the right (a faked bold); double letters of a
  // word stand side by side and stay.
  const std::string content =
      "BT /F1 10 Tf 72 700 Td [(B) 617 (B) (o) 506 (o) (l) 172 (l) (d) 506 (d)] TJ ET\n" +
      testing::TextAt(72, 680, 10, "Wall street");
  EXPECT_EQ(LineTexts(testing::MakePdf({{content}})), (std::vector<std::string>{"Bold", "Wall street"}));
}

TEST(TextLinesTest, FiguresSetWithNoGapAreTwoFigures) {
  // Two columns of a tight table, the figures touching; then figures grouped in other ways.
  const std::string content =
      testing::TextAt(72, 700, 9, "29,760,02133,871,648") +
      testing::TextAt(72, 680, 9, "Indian 1,23,45,678 and decimal 1,2345 stay whole.");
  const std::vector<uint8_t> pdf = testing::MakePdf({{content}});
  EXPECT_EQ(LineTexts(pdf), (std::vector<std::string>{"29,760,021 33,871,648",
                                                      "Indian 1,23,45,678 and decimal 1,2345 stay whole."}));
  auto doc = PdfDocument::Open(pdf, {});
  ASSERT_TRUE(doc.ok());
  auto page = ExtractPageContent(**doc, 0);
  ASSERT_TRUE(page.ok());
  std::vector<std::string> cells;
  for (const AlignedPiece& p : SplitAtColumnGaps(page->lines[0])) cells.push_back(p.text);
  EXPECT_EQ(cells, (std::vector<std::string>{"29,760,021", "33,871,648"}));  // two cells
}

// A Chinese font the file does not embed (the reader substitutes one), with widths `widths` ("" for
// none: every glyph advances a full em) over CIDs; Unicode code points as 2-byte codes.
std::vector<std::string> CjkLines(const std::string& widths, const std::vector<std::u16string>& lines) {
  std::string content;
  double y = 700;
  for (const std::u16string& line : lines) {
    content += "BT /F3 10 Tf 72 " + std::to_string(y) + " Td <";
    for (char16_t c : line) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(c));
      content += hex;
    }
    content += "> Tj ET\n";
    y -= 20;
  }
  const std::string font =
      "<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /UniGB-UCS2-H /DescendantFonts [7 0 "
      "R] "
      ">>";
  const std::string cid_font =
      "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) "
      "/Ordering (GB1) /Supplement 2 >> /FontDescriptor 8 0 R " +
      widths + " >>";
  const std::string descriptor =
      "<< /Type /FontDescriptor /FontName /STSong-Light /Flags 6 /FontBBox [0 -200 1000 900] /ItalicAngle 0 "
      "/Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>";
  return LineTexts(testing::MakePdfWithFont(content, font, {cid_font, descriptor}));
}

TEST(TextLinesTest, DigitsInFullWidthCellsOfAChineseFontAreOneNumber) {
  // No widths: every digit takes a full em, the rest of its cell reads as a space ("1 2 3 , 4 5 6 万元");
  // a space of the text's own stays.
  EXPECT_EQ(CjkLines("", {u"收入123,456万元", u"2020 年"}),
            (std::vector<std::string>{"收入123,456万元", "2020 年"}));
  // Half-width digits with widths (CIDs 1-95 of Adobe-GB1, 500 each): a space of the text's own after a
  // figure takes half an em, and stays.
  EXPECT_EQ(CjkLines("/W [1 95 500]", {u"2020 年 12 月"}), (std::vector<std::string>{"2020 年 12 月"}));
}

// Text drawn turned a quarter (a = 0, b = `up`, c = -`up`, d = 0): up = 1 reads up the page.
std::string TurnedTextAt(double x, double y, int up, const std::string& text) {
  return "BT /F1 10 Tf 0 " + std::to_string(up) + " " + std::to_string(-up) + " 0 " + std::to_string(x) +
         " " + std::to_string(y) + " Tm (" + text + ") Tj ET\n";
}

// The text layer of a one-page PDF of `content` (empty on failure, with a test failure).
PageContent ExtractFrom(const std::string& content) {
  const std::vector<uint8_t> pdf = testing::MakePdf({{content}});
  auto doc = PdfDocument::Open(pdf, {});
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  if (!doc.ok()) return {};
  auto page = ExtractPageContent(**doc, 0);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  return page.ok() ? std::move(*page) : PageContent{};
}

TEST(TextLinesTest, AnAccentSetOverALetterIsTheAccentedLetter) {
  // As TeX sets \"o in its original encoding: the diaeresis (WinAnsiEncoding 0250) moved over the "o",
  // then the "o" drawn back under it. An accent standing apart stays as it is.
  const std::string content =
      "BT /F1 10 Tf 100 700 Td [(G) -110 (\\250) 443 (odel and M) -110 (\\250) 443 (uller)] TJ ET\n"
      "BT /F1 10 Tf 100 650 Td [(the accent ) -2000 (\\250) -2000 ( alone)] TJ ET\n";
  const PageContent page = ExtractFrom(content);
  std::string text;
  for (const TextLine& l : page.lines) text += l.text + "|";
  EXPECT_NE(text.find("G\u00f6del and M\u00fcller|"), std::string::npos) << text;
  EXPECT_NE(text.find("\u00a8"), std::string::npos) << text;
}

TEST(TextLinesTest, APageWhoseTextIsSetOnItsSideIsReadTurned) {
  // A landscape table on a portrait page: three rows reading up the page, a column every 150 pt, and
  // the page number upright at the foot.
  const char* rows[3][2] = {{"Region", "Population"}, {"North East", "2,647,013"}, {"London", "8,799,728"}};
  for (int up : {1, -1}) {
    std::string content = testing::TextAt(300, 30, 10, "17");
    for (int r = 0; r < 3; ++r) {
      double x = up == 1 ? 200 + 20.0 * r : 400 - 20.0 * r;  // each row right of (left of) the one above
      for (int c = 0; c < 2; ++c)
        content += TurnedTextAt(x, up == 1 ? 200 + 150.0 * c : 600 - 150.0 * c, up, rows[r][c]);
    }
    const PageContent page = ExtractFrom(content);
    EXPECT_EQ(page.turned, up == 1 ? 90 : 270);
    EXPECT_DOUBLE_EQ(page.page.width(), 792);  // the turned frame
    EXPECT_DOUBLE_EQ(page.page.height(), 612);
    // Rows top to bottom, cells left to right, each a horizontal line; the page number on its side.
    std::vector<std::string> across;
    for (const TextLine& l : page.lines) {
      if (!l.sideways) across.push_back(l.text);
    }
    EXPECT_EQ(across, (std::vector<std::string>{"Region", "Population", "North East", "2,647,013", "London",
                                                "8,799,728"}));
    std::vector<RuledTable> tables =
        FindAlignedTables(page.lines, std::vector<bool>(page.lines.size()), page.page);
    ASSERT_EQ(tables.size(), 1u);
    EXPECT_EQ(tables[0].num_rows, 3);
    EXPECT_EQ(tables[0].num_cols, 2);
  }
  // Upright text with a turned label or two is read as it stands.
  std::string upright = TurnedTextAt(50, 300, 1, "arXiv:2101.00001v1 [cs.CL] 1 Jan 2021");
  for (int i = 0; i < 4; ++i)
    upright += testing::TextAt(100, 700 - 14.0 * i, 10, "A line of the body text of this page.");
  EXPECT_EQ(ExtractFrom(upright).turned, 0);
}

TEST(TextLinesTest, LinesSetOnTheirSideSideBySideStayTwoLines) {
  // A note of two lines up the margin of an upright page.
  std::string content = TurnedTextAt(50, 200, 1, "The first line of a note set up the margin") +
                        TurnedTextAt(62, 200, 1, "and the second line of the same note.");
  for (int i = 0; i < 3; ++i)
    content += testing::TextAt(100, 700 - 14.0 * i, 10, "A line of the body text of this page.");
  const PageContent page = ExtractFrom(content);
  EXPECT_EQ(page.turned, 0);
  std::vector<std::string> sideways;
  for (const TextLine& l : page.lines) {
    if (l.sideways) sideways.push_back(l.text);
  }
  EXPECT_EQ(sideways, (std::vector<std::string>{"The first line of a note set up the margin",
                                                "and the second line of the same note."}));
}

TEST(TextLinesTest, AShadingIsBoundedByTheClipItIsPaintedThrough) {
  // An axial shading extended without end, painted through a clip 6 points square (a slide's ball
  // bullet) and through none (a page's gradient background): the first is a shading 6 points square, the
  // second adds nothing.
  const std::string shading =
      "<< /ShadingType 2 /ColorSpace /DeviceGray /Coords [0 0 1 0] /Extend [true true] "
      "/Function << /FunctionType 2 /Domain [0 1] /C0 [0] /C1 [1] /N 1 >> >>";
  const std::string content =
      "q 100 700 6 6 re W n /Sh1 sh Q q /Sh1 sh Q " + testing::TextAt(112, 700, 10, "An item");
  const std::vector<uint8_t> pdf =
      testing::MakePdfWithFont(content, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>", {shading},
                               "/Shading << /Sh1 7 0 R >>");
  auto doc = PdfDocument::Open(pdf, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  auto page = ExtractPageContent(**doc, 0);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->shadings.size(), 1u);
  EXPECT_NEAR(page->shadings[0].x0, 100, 0.5);
  EXPECT_NEAR(page->shadings[0].width(), 6, 0.5);
  EXPECT_NEAR(page->shadings[0].y1, 92, 0.5);  // 792 - 700: MuPDF's frame, y down
  EXPECT_TRUE(page->drawings.empty());
}

TEST(TextLinesTest, AnUnderscoreDrawnAsARuleBetweenTwoWordsIsOne) {
  // TeX's \_ in its original encoding is a rule 5 points long under the baseline between "vram" and
  // "budget": one word, "vram_budget". The same rule at mid height (a dash drawn through the gap), or an
  // underline under a whole word, is no underscore.
  const std::string words = testing::TextAt(100, 700, 10, "vram") + testing::TextAt(129, 700, 10, "budget") +
                            testing::TextAt(100, 650, 10, "kv") + testing::TextAt(119, 650, 10, "pages") +
                            testing::TextAt(100, 600, 10, "underlined words");
  const std::string bars = "123 699 5 0.4 re f 111 654 5 0.4 re f 100 598.5 70 0.5 re f ";
  const PageContent page = ExtractFrom(bars + words);
  std::vector<std::string> texts;
  for (const TextLine& l : page.lines) texts.push_back(l.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"vram_budget", "kv pages", "underlined words"}));
}

TEST(TextLinesTest, ALineSetOnItsSideInAProportionalFaceIsNotMonospaced) {
  // A chart's axis title up the page in Helvetica: its glyphs' boxes are all as wide as the line is tall,
  // which says nothing of their advances (a line of code would have been taken out of the figure).
  std::string content = TurnedTextAt(50, 300, 1, "Edit distance of pages");
  for (int i = 0; i < 3; ++i)
    content += testing::TextAt(100, 700 - 14.0 * i, 10, "A line of the body text of this page.");
  const PageContent page = ExtractFrom(content);
  ASSERT_FALSE(page.lines.empty());
  for (const TextLine& l : page.lines) {
    if (l.sideways) {
      EXPECT_FALSE(l.monospace) << l.text;
    }
  }
  EXPECT_EQ(std::count_if(page.lines.begin(), page.lines.end(), [](const TextLine& l) { return l.sideways; }),
            1);
}

}  // namespace
}  // namespace mineru::document
