// Running text: what a document repeats at the same place on many pages (a journal's title, volume and
// DOI line, an author line, a copyright or "Downloaded from" line, a margin stamp) and page numbers.
// Left out of the body and of the style analysis.
//
// Candidates are lines in the top or bottom 20% of a page or entirely inside its left or right 10%.
// A candidate's key is its band and its text with digits masked and case folded ("Page 3" and "Page 4"
// are one key). A key is running when it occurs on at least a third of the pages (two at least) at a
// similar place: within 2% of the page's height (top / bottom bands) or width (side bands) of one
// another; in the outer 14% of the height (the classic header and footer band) the place may vary.
// Outside that band a line inside a stack of lines of its own style (a paragraph) and a bare number (a
// section number, a table cell) are no candidates.
// A line set 1.2 times as large as a key's smallest occurrence or more is no running text: a paper's
// title on its first page under the same words set small as the running header of every page.
// Page numbers ("7", "- 7 -", "Page 7 of 9", roman numerals) are dropped in the 14% bands on every page,
// unless they sit among numbers like cells of a table (a header of years at the top of a page).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "document/block.h"
#include "document/text_lines.h"

namespace mineru::document {

// The key of a candidate line ("T:journaloftests", "B:...", "L:...", "R:..."); "" for other lines.
std::string RunningKey(const TextLine& line, const Rect& page);

// True when the line lies in the top or bottom 14% of the page (where page numbers are dropped).
bool InPageNumberBand(const TextLine& line, const Rect& page);

// True for "12", "- 12 -", "Page 3", "3 of 10", "iv".
bool IsPageNumberText(const std::string& text);

// True for a page number: page-number text in its band, or alone at the foot of the page in the bottom
// 20% (the lowest line, alone on its baseline, one and a half of its heights or more under any other
// text: LaTeX's page number on an A4 page), and not among cells (another number on its
// baseline, or right above or below it: a table's header of years or its last rows) nor an equation's
// number ("(3)" with text on its left on its baseline, or a formula on its right) nor a label ("[1]", a
// section's "2", with text within two ems on its right on its baseline).
bool IsPageNumber(const TextLine& line, const PageContent& page);

// Line numbers in a margin (a manuscript's or a preprint's) or of a listing: for each of `page.lines`,
// true when it is a bare number (up to 4 digits; 6 in a listing) in a column of at least five of them,
// counting up down the page in one step, with every other line beside that column's height entirely on
// one side of it (left of a right margin's numbers, right of a left margin's), or, a listing's, with
// code after most of them on their baselines (the nearest line there in a monospaced face,
// `monospace_fonts` or its own flag, within 16 ems: indented code). A table's column of row numbers has its
// table's text and the body on both sides and no code beside it, so it is none.
std::vector<bool> FindLineNumbers(const PageContent& page, const std::set<std::string>& monospace_fonts);

// A page's own header, which needs no other page: for each of `page.lines`, true when it is the page's
// topmost line, or on that line's baseline, inside the top 10% of the page, where none of those lines is
// set larger than the body (`body_size`) or bold and the nearest text, picture or drawing (not a thin
// rule, no page number) under them is at least two body sizes below: a header whose words change from
// page to page (a chapter's name) or a single page's ("Published as a conference paper at ..."). A
// page's first heading or line of text, or a caption over a figure, is closer to what follows it. A line
// with nothing under it, or one alone on its baseline ending a sentence after 50 characters or more, is
// the page's text (a paragraph's last line carried over, a float under it or nothing).
std::vector<bool> FindPageHeader(const PageContent& page, double body_size);

// Where a running key repeats (a fraction of the page's height, or width for the side bands) and the
// smallest size it is set in.
struct Repeat {
  double place = 0;
  double size = 0;
};
using RunningKeys = std::map<std::string, Repeat>;

// The keys that are running text in `pages` (see above).
RunningKeys FindRunningKeys(const std::vector<PageContent>& pages);

// A stamp in a margin, even on one page: a line of four characters or more set on its side (its box taller
// than wide) entirely inside the left or right 10% of the page (arXiv's identifier and date, a journal's
// "Downloaded from ..." notice).
bool IsMarginStamp(const TextLine& line, const Rect& page);

// True when `line` is left out of the body: a page number in its band, a margin stamp, or a line with a
// running key in the 14% band or, outside it, at the place where the key repeats; not a bare number
// labelling text that stays, close on its right on its baseline ("[12]" before a reference at the top of
// each page of references), nor a table's cells repeated at one place (a number among others, a row
// ruled above and below within its height, a line of cells over a baseline of cells set no larger).
bool IsRunningLine(const TextLine& line, const PageContent& page, const RunningKeys& running_keys);

// Running text of pages read by OCR, which are handed on one at a time, each before the next is read:
// a block inside the top or bottom 14% of its page (the header and footer band) is dropped when its text
// is a page number or was read in the same band of an earlier page (letters folded, digits masked,
// spaces and ASCII punctuation left out, as recognition varies in them). The first page keeps its header.
class OcrRunningText {
 public:
  // Drops the running text from a page's blocks (boxes in the 0-1000 frame) and remembers its band's texts.
  void Filter(std::vector<Block>& blocks);

 private:
  std::set<std::string> seen_;  // band letter + text key
};

}  // namespace mineru::document
