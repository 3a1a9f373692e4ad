// Vector figures: charts and diagrams drawn with paths rather than embedded as images. Their axis labels,
// tick values and legends are text in the text layer; read as body text they come out as stray
// paragraphs ("50 40 Urinary excretion ... 0 10 30 100 300"). A region where many paths gather and whose
// text is all short labels is a figure: the layout makes it an image block (cropped like any image) and
// leaves its labels out of the body.
#pragma once

#include <vector>

#include "document/text_lines.h"

namespace mineru::document {

inline constexpr size_t kMaxFigureLabelChars = 40;  // bytes of a figure's label line; longer is running text

// The regions of `page` that are vector figures, each with its legend when one is set beside it (two or
// more small paths within 30 points of it, each with a short label right after it on its line). Paths
// (page.drawings, each grown by 3 points) that touch form a group; a group is a figure when it holds at least
// 8 paths, covers at least 2% of the page and 40 x 40 points but less than 70% of it, overlaps no table in
// `tables` by half, and the text lines inside it are labels: at least one (or, with none inside, at least 3
// tick values beside it: a chart's bars and gridlines), none longer than 40 characters or monospaced, at most
// 30% of the group's area. A frame or a shaded box around paragraphs or code therefore is no figure. A
// chart's gridlines above its tallest bar (thin lines of the extent of two or more of its own, one spacing
// past the outermost, one after the other) are part of it.
std::vector<Rect> FindVectorFigures(const PageContent& page, const std::vector<TextLine>& lines,
                                    const std::vector<Rect>& tables);

// True when `line` is a label of the vector figure `figure`: inside it, at most 40 characters and not
// monospaced; or beside it (within 3 times the line's size: tick values, axis titles; over it, within 1.5
// times and over its width give or take an em: a chart's title), at most 25 characters and without a ':'
// (a caption "Listing 1: ..." stays).
bool IsFigureLabel(const TextLine& line, const Rect& figure);

}  // namespace mineru::document
