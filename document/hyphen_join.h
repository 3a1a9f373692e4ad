// Text broken by a break in the text flow: a paragraph that ends in "tolerabil-" at the foot of a column
// or a page, and text after the break (the next column, the next page, past a figure) that starts with
// "ity". The layout joins lines inside one paragraph (JoinLine); these join across blocks, after the
// layout has put the blocks in reading order: the rest of a paragraph after a column break, a float or a
// page break, and a word hyphenated across any break.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "document/block.h"
#include "document/text_lines.h"

namespace mineru::document {

// Within one page's blocks (reading order), set from `lines`: `block_lines[k]` are the lines block k was
// set from (empty for tables and images). A paragraph broken by a column break or a float is joined: a
// text block whose last line does not end a sentence and ends where the next block's first word would not
// have fitted (the measure is its widest line), and the next text block (figures, tables and their
// captions between them skipped), starting in the next column (higher up the page) or past such a float,
// in the same face and size, not indented (but for the rest of a reference that starts with its label,
// "[3] ...", whose lines hang indented), with a lower-case letter, or in Chinese or Japanese after a
// Chinese or Japanese character. The second block's text joins the first (which keeps its box, the
// start of the paragraph) and the second is removed from both lists. Across a page break, see
// JoinParagraphAcrossPages.
void JoinBrokenParagraphs(std::vector<Block>& blocks, std::vector<std::vector<size_t>>& block_lines,
                          const std::vector<TextLine>& lines);

// Where a page's text flow ends and starts, for a paragraph broken by a page break.
struct FlowEnds {
  // The page's last paragraph (figures, tables, their captions and notes, and footnotes set smaller under
  // it, passed over): its block, its last line, and the room its measure (its widest line) leaves after
  // that line, in points; none when the page ends in anything else or the paragraph is one line.
  std::optional<size_t> last;
  TextLine last_line;
  double room = 0;
  // The page's first paragraph (floats passed over): its block, its first line, the width of that line's
  // first word, and whether the line is indented in its column.
  std::optional<size_t> first;
  TextLine first_line;
  double first_word = 0;
  bool indented = false;
};

// The FlowEnds of one page's blocks, set from `lines` as for JoinBrokenParagraphs.
FlowEnds FindFlowEnds(const std::vector<Block>& blocks, const std::vector<std::vector<size_t>>& block_lines,
                      const std::vector<TextLine>& lines);

// A paragraph broken by a page break is joined by the rules of a column break: the last paragraph of
// `page` goes on into the first of `next_page` when it does not end a sentence and the next page's first
// word would not have fitted in its last line's room, and that paragraph starts in the same face and
// size, not indented, in lower case (or Chinese or Japanese after Chinese or Japanese). The text joins
// the first page's block (which keeps its box; MinerU's JSON keeps a paragraph on the page it starts
// on) and the block is removed from `next_page`; `next_ends` follows. Returns true when it joined.
bool JoinParagraphAcrossPages(std::vector<Block>& page, const FlowEnds& ends, std::vector<Block>& next_page,
                              FlowEnds& next_ends);

// When `prev` (a text block) ends in a letter and a hyphen and `next` (a text block) starts with a
// lower-case letter, the rest of the word ("ity", up to the first space) moves to the end of `prev` in
// place of the hyphen. The boxes stay. Returns true when it joined; `next` may be left empty.
bool JoinHyphenatedWord(Block& prev, Block& next);

// Within one page's blocks (reading order): each text block and the next text block, skipping the
// figures, tables and their captions and footnotes set between them. Blocks left empty are removed (the
// page's `ends`, when given, follow).
void JoinHyphenatedWords(std::vector<Block>& blocks, FlowEnds* ends = nullptr);

// Across a page break: the last text block of `page` and the first text block of `next_page` (figures,
// tables, captions and footnotes skipped as above).
void JoinHyphenatedWordsAcrossPages(std::vector<Block>& page, std::vector<Block>& next_page,
                                    FlowEnds* next_ends = nullptr);

}  // namespace mineru::document
