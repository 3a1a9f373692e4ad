// Text-layer extraction: one page of MuPDF structured text -> visual lines (fragments on one baseline
// merged, right-to-left lines in logical order), image rectangles and ruling segments (thin strokes and
// fills, for tables). Plain data; the layout step (text_layout.h) never touches MuPDF.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "document/math_letters.h"
#include "document/page_geometry.h"
#include "document/pdf_document.h"

namespace mineru::document {

struct TextChar {
  char32_t rune = 0;
  Rect box;
  // One of the letters of a ligature glyph (U+FB00-FB06: ff, fi, fl, ffi, ffl, st), which is split into
  // its letters, each with its share of the glyph's box.
  bool ligature = false;
  // A space put between two figures set with no gap between them ("29,760,021" and "33,871,648"): the
  // figures are two cells of a table.
  bool parts_numbers = false;
  // Set in a font for mathematics (IsMathFont). With the glyph's size and baseline (y of its origin),
  // where a formula's scripts, limits and fractions stand (display_math.h); 0 where unknown.
  bool math = false;
  float size = 0;
  float baseline = 0;
  // `box` is the glyph's ink, not its font's ascent and descent: a glyph of TeX's math extension font
  // named by its font (TexExtensionGlyph), a big operator or a tall delimiter.
  bool ink = false;
  // The alphabet a letter is drawn in, for a formula's LaTeX ("\\mathbb{R}"): by its font
  // (AlphabetOfFontLetter) or by its code point (AlphabetOfMathLetter).
  MathAlphabet alphabet = MathAlphabet::kPlain;
};

struct TextLine {
  Rect box;
  std::vector<TextChar> chars;  // logical order; spaces included
  std::string text;             // UTF-8 of chars, whitespace collapsed, trimmed
  double font_size = 0;         // the most common size on the line
  bool bold = false;            // most characters in a bold face
  bool rtl = false;             // right-to-left script dominates
  bool monospace = false;
  bool italic = false;    // most characters in an italic / oblique face
  bool sideways = false;  // its glyphs run up or down the page
  std::string font;       // family of most characters ("Times", "Helvetica"; subset prefix and style removed)
  // Non-space characters per face ("Times", "Times/b", "Times/i", "Times/bi"), for lines of mixed faces.
  std::map<std::string, int> faces;
};

// Whether two lines, one of mixed faces at least (none has 85 % of its characters), share a face that
// has at least a quarter of each: lines of prose with code or math in them, whatever face has the most
// characters, and a line all in roman beside one mostly in italics (a title cited in a reference). A line
// all in a monospaced or a bold face shares none with a line of mixed faces (code under prose with code
// in it, a heading over text with a bold word).
bool ShareFace(const TextLine& a, const TextLine& b);

// The first line of `lines` that `label` stands before: on its baseline (overlapping `overlap` of the
// smaller height or more), starting at most `reach_ems` of the label's size right of its right edge, and
// accepted by `accept`; null when none ("[1]" before its reference, a section's "2" before its heading).
template <typename Accept>
const TextLine* LabelledBy(const TextLine& label, const std::vector<TextLine>& lines, double reach_ems,
                           double overlap, Accept accept) {
  const double reach = reach_ems * std::max(1.0, label.font_size);
  for (const TextLine& other : lines) {
    const double gap = other.box.x0 - label.box.x1;
    if (&other != &label && gap >= 0 && gap <= reach && VerticalOverlap(other.box, label.box) >= overlap &&
        accept(other))
      return &other;
  }
  return nullptr;
}

// Whether two lines are set in one face: the same family, weight, slant and spacing, or sharing a face
// (ShareFace).
bool SameFace(const TextLine& a, const TextLine& b);

// Whether a font family (TextLine::font) sets mathematics: TeX's math italic, symbols and extension
// fonts (CMMI, CMSY, CMEX and their bold, Latin Modern's, the AMS symbols MSAM / MSBM, the AMS Euler
// Fraktur and script EUFM / EUSM and their bold, Ralph Smith's script RSFS), and any family
// with "Math" in its name (Cambria Math, STIX Two Math).
bool IsMathFont(std::string_view family);

// A line's box over its glyphs at its size (TextLine::font_size): glyphs set smaller (an inline
// formula's scripts, a note's raised mark) and big operators and delimiters (TextChar::ink), which reach
// over and under the line, left out; its box when no glyph's size is known.
Rect BodyBox(const TextLine& line);

// Whether a line starts with a mark set small and raised (up to three glyphs at most 0.8 as tall as the
// rest of the line, their bottom a fifth of the rest's height or more over the rest's baseline) before
// text of its own: a footnote's number or symbol, an affiliation's index.
bool StartsWithRaisedMark(const TextLine& line);

// Whether a line is a list of names marked with raised indices ("Marco Silva1, Tomas Huang2 and Lena
// Weber1,*": two names or more, each of two to four capitalised words or initials, two marked at least):
// a paper's authors.
bool IsMarkedNameList(const TextLine& line);

struct RulingSegment {
  Rect box;  // thin: height (horizontal) or width (vertical) of a few points at most
  bool horizontal = true;
};

struct PageContent {
  Rect page;  // displayed bounds, points (turned as `turned` says)
  // Degrees (90, 180, 270) the page was turned clockwise to read it, when most of its text is set on its
  // side or upside down; every box here is in that turned frame. 0: as displayed.
  int turned = 0;
  std::vector<TextLine> lines;
  std::vector<Rect> images;
  std::vector<RulingSegment> rules;
  // Bounds of the filled and stroked paths (at most 5000 per page): vector figures (figure_regions.h).
  std::vector<Rect> drawings;
  // Bounds of shadings inside the clip they are painted through (at most 5000 per page): a slide's ball
  // bullets (drawn_markers.h), gradient boxes.
  std::vector<Rect> shadings;
  // Filled axis-aligned rectangles (at most 5000 per page): shaded table cells (ruling_table.h).
  std::vector<Rect> fills;
  int num_chars = 0;  // non-space characters
};

// Extracts page `page_index`; MuPDF errors become the returned Status (the caller marks the page failed).
Result<PageContent> ExtractPageContent(PdfDocument& doc, int page_index);

// Builds a visual line from fragments already known to share a baseline (exposed for tests):
// orders them by x, puts right-to-left lines and phrases in logical order (bidi.h), inserts spaces at gaps.
TextLine MergeFragments(std::vector<TextLine> fragments);

// The advance widths of a line's characters: kUniform when every non-space character has the same width
// although the line mixes narrow glyphs ("i", "l", ".", "(") with other letters (a monospaced font,
// whatever its name says: code listings); kVaried when such a line has different widths; kUnknown when
// there is nothing to compare (fewer than 6 characters, no narrow glyph, no other Latin letter).
enum class Advances { kUnknown, kUniform, kVaried };
Advances MeasureAdvances(const std::vector<TextChar>& chars);

void AppendUtf8(std::string& out, char32_t c);

// Appends what a character adds to a line's text (TextLine::text): whitespace one space before the next
// character (none at the start), control characters and unmapped glyphs (U+FFFD) nothing.
void AppendLineChar(std::string& text, bool& pending_space, char32_t c);

// Characters (code points) of UTF-8 text: its bytes that do not continue a character.
size_t Utf8Length(std::string_view text);

// Han, kana, CJK punctuation and full-width forms: no spaces between them.
bool IsCjkChar(char32_t c);

// Han ideographs (the unified ones and extension A): Chinese text, not its punctuation or full-width forms.
bool IsIdeograph(char32_t c);

// Hangul: jamo, compatibility jamo and syllables. Korean puts spaces between its words.
bool IsHangul(char32_t c);

// A bare number of one to `max_digits` digits ("7", "120"): a line number, a page number, a section
// number (four digits; a long listing's line numbers and an index's page numbers, six).
bool IsBareNumber(std::string_view text, size_t max_digits = 4);

// The value of a Roman numeral written the usual way in one case ("xxv", "XIV", "iv": 25, 14, 4; up to
// 3999), or 0 for anything else ("iiii", "vx", "Iv", "ill").
int RomanNumeralValue(std::string_view text);

// Lower-case Latin letters (ASCII and Latin-1).
bool IsLowerLatin(char32_t c);

// The letters of a ligature code point (U+FB00-FB06), or "" for any other character.
std::u32string_view LigatureLetters(char32_t c);

// True when a space between `prev` and `next` is an artefact of a ligature glyph, not a word break: a
// space right after an fi, fl, ffi or ffl ligature, before a lower-case letter ("Infl ammation",
// "fl urbiprofen"): words hardly ever end in those ligatures, and a font whose ligature glyph is
// narrower than the advance the PDF gives it leaves exactly such a gap.
bool IsLigatureGap(const TextChar& prev, char32_t next);

}  // namespace mineru::document
