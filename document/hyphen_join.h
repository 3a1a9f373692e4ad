// Words hyphenated across a break in the text flow: a paragraph that ends in "tolerabil-" at the foot
// of a column or a page, and text after the break (the next column, the next page, past a figure) that
// starts with "ity". The layout joins lines inside one paragraph (JoinLine); these join the word across
// blocks, after the layout has put the blocks in reading order.
#pragma once

#include <vector>

#include "document/block.h"

namespace mineru::document {

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
