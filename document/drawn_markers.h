// List markers drawn rather than set in type: a bullet that is a small filled shape (a disc a browser
// draws for a list item, a ball or triangle of a slide's theme, shaded or flat) left of its item's text,
// and an item's number set on a small shape (a slide's numbered ball). The layout reads lists from their
// text ("•", "1."), so each such line gets the marker it shows.
#pragma once

#include <vector>

#include "document/page_geometry.h"
#include "document/text_lines.h"

namespace mineru::document {

// For each line of `lines` (a page's, in any order; not those `skip` marks, a figure's labels) that starts
// with a drawn marker among `shapes` (PageContent::drawings and shadings): a bullet (a shape 0.2 to 0.8 of
// the line's size across, at most twice as wide as tall or as tall as wide, its middle inside the line's
// height, ending 0.1 to 1.5 ems left of the text with no other line's text over it) becomes "• " before the
// line's text, with a character "•" in the shape's box; one to two digits set on a shape 0.5 to 1.2 of the
// line's size across, the rest of the line after a space, become "N." ("1 Render" on a numbered ball reads
// "1. Render"). Returns how many lines got a marker.
size_t AddDrawnMarkers(std::vector<TextLine>& lines, const std::vector<Rect>& shapes,
                       const std::vector<bool>& skip);

}  // namespace mineru::document
