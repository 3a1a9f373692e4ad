// Text broken by a break in the text flow: a paragraph that ends in "tolerabil-" at the foot of a column
// or a page, and text after the break (the next column, the next page, past a figure) that starts with
// "ity". The layout joins lines inside one paragraph (JoinLine); these join across blocks, after the
// layout has put the blocks in reading order: the rest of a paragraph after a column break or a float on
// its page, and a word hyphenated across any break.
#pragma once

#include <cstddef>
#include <vector>

#include "document/block.h"
#include "document/text_lines.h"

namespace mineru::document {

// Within one page's blocks (reading order), set from `lines`: `block_lines[k]` are the lines block k was
// set from (empty for tables and images). A paragraph broken by a column break or a float is joined: a
// text block whose last line does not end a sentence and ends where the next block's first word would not
// have fitted (the measure is its widest line), and the next text block (figures, tables and their
// captions between them skipped), starting in the next column (higher up the page) or past such a float,
// in the same face and size, not indented, with a lower-case letter, or in Chinese or Japanese after a
// Chinese or Japanese character. The second block's text joins the first (which keeps its box, the
// start of the paragraph) and the second is removed from both lists. A page break keeps each page's text
// on its page (only a hyphenated word moves back, below).
void JoinBrokenParagraphs(std::vector<Block>& blocks, std::vector<std::vector<size_t>>& block_lines,
                          const std::vector<TextLine>& lines);

// When `prev` (a text block) ends in a letter and a hyphen and `next` (a text block) starts with a
// lower-case letter, the rest of the word ("ity", up to the first space) moves to the end of `prev` in
// place of the hyphen. The boxes stay. Returns true when it joined; `next` may be left empty.
bool JoinHyphenatedWord(Block& prev, Block& next);

// Within one page's blocks (reading order): each text block and the next text block, skipping the
// figures, tables and their captions and footnotes set between them. Blocks left empty are removed.
void JoinHyphenatedWords(std::vector<Block>& blocks);

// Across a page break: the last text block of `page` and the first text block of `next_page` (figures,
// tables, captions and footnotes skipped as above).
void JoinHyphenatedWordsAcrossPages(std::vector<Block>& page, std::vector<Block>& next_page);

}  // namespace mineru::document
