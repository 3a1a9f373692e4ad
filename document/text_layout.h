// Text layout: the lines, images, rules of one page (text_lines.h) -> blocks in reading order.
//
//  1. Running headers, footers, margin stamps, a page's own header and page numbers (running_text.h) are
//     left out.
//  2. Tables become table blocks (ruling_table.h, aligned_table.h; on right-to-left pages read in a
//     mirror, so rows start at the right); images and vector figures (figure_regions.h: charts drawn
//     with paths, whose labels and legend leave the body) become image blocks.
//  3. Reading order: a gutter free of narrow items splits the page into columns; items that cross it
//     (titles, wide figures) cut the columns into bands, read top to bottom; columns left to right, or
//     right to left on right-to-left pages. Recursive, so nested columns work. Failing that, a whitespace
//     strip that few items cross is a gutter beside a column of running text (a report's sidebar).
//     Columns of short lines are then searched for tables of their own (a sidebar's key data).
//  4. Lines in one column join into paragraphs (small gap, same size and weight, no list marker), with
//     de-hyphenation. A paragraph is a title when it is short and larger than body text (levels 1-3 by
//     size rank) or, at body size, entirely bold or a single line in another family or in italics (the
//     next level; never in a style used for stacks of lines, never one of a row of same-style lines);
//     a list when its lines start with bullets or numbers. Titles are demoted again when three in one
//     font and size follow each other (or seven share a page) and when text in their own style follows.
//     "Figure N" / "Table N" paragraphs become captions of the nearest body.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "document/block.h"
#include "document/hyphen_join.h"
#include "document/running_text.h"
#include "document/text_lines.h"

namespace mineru::document {

struct DocumentStyle {
  double body_size = 10;
  std::string body_font;              // family of most body characters
  std::vector<double> heading_sizes;  // descending; index = level - 1
  RunningKeys running_keys;           // running text (running_text.h) -> where it repeats
  // Styles (StyleKey) set as running text: most of their lines sit in stacks of two or more lines of the
  // same style (code listings, figure labels, sidebars). A line in such a style is no heading by style.
  std::set<std::string> stacked_styles;
  // Font families whose measurable lines have uniform advances (MeasureAdvances): their lines are
  // monospaced even where a line has nothing to measure ("END;").
  std::set<std::string> monospace_fonts;
};

// Family, size (half points), weight and slant of a line: "Times@20" with "/b" and "/i" appended.
std::string StyleKey(const TextLine& line);

// Body size, heading sizes and running headers / footers across all pages.
DocumentStyle AnalyzeStyle(const std::vector<PageContent>& pages);

// Blocks of one page in reading order (bboxes in the 0-1000 frame); where the page's text flow ends and
// starts in `ends` when given (hyphen_join.h: a paragraph broken by a page break).
std::vector<Block> LayoutPage(const PageContent& page, const DocumentStyle& style, FlowEnds* ends = nullptr);

// Decodes the UTF-8 code point of `s` at `i` and advances i; U+FFFD (one byte) on bad bytes.
char32_t DecodeUtf8(const std::string& s, size_t& i);

// The width of UTF-8 text in characters of Latin text: a full-width character (Han, kana, CJK
// punctuation, Hangul) counts as two. A line of 35 Chinese characters is as long as one of 70 letters.
size_t DisplayWidth(const std::string& text);
// The last code point of `s` (0 when empty).
char32_t LastRune(const std::string& s);
// Whether `text` ends a sentence (a full stop, colon, question or exclamation mark or ellipsis, Latin or
// full-width), or with `clause` a clause too (a semicolon); closing quotes and brackets after the stop
// aside ("... works.\u201d").
bool EndsSentence(const std::string& text, bool clause = false);

// Joins two lines of one paragraph: de-hyphenates "exam-" + "ple", no space between CJK characters.
void JoinLine(std::string& paragraph, const std::string& next_line);

// "Table 3 ...", "Figure 2.", "Fig. A: ...": a caption's opening; sets *body to the kind it captions
// (kTable or kImage).
bool StartsCaption(const std::string& text, BlockType* body);

// The number of a caption's label ("Table |3:| ...", "Fig. |2.|") and where it ends (npos at the text's
// end); an empty number when the label has none after a space.
std::pair<std::string_view, size_t> CaptionNumber(const std::string& text);

// A note's label at the start of `text`: "Source:", "Notes.", "Data sources:" (capitalised), "资料来源：",
// "数据来源：", "来源：", "注：", "备注：".
bool StartsNoteLabel(const std::string& text);

// A list marker at the start of `text`: sets *numbered and returns the marker's length in bytes with the
// space after it (none after a bullet set right before Chinese text, "◆公司..."), or 0.
size_t ListMarkerLength(const std::string& text, bool* numbered);

// A label alone: a list's marker ("1.", "(a)", a bullet) or a reference's number ("[12]").
bool IsBareLabel(const std::string& text);

// The number of the reference's label that `text` starts with, a space after it ("[12] A. Name, ..."), or
// -1 for none. References set with a hanging indent: their other lines stand indented under the label.
int ReferenceLabelNumber(const std::string& text);

// Cuts a dot leader (three dots or more, spaced or not, or two ellipses) off the end of `text` and the
// spaces before it; whether there was one. "Wages and salaries ......" -> "Wages and salaries".
bool CutTrailingLeader(std::string& text);

}  // namespace mineru::document
