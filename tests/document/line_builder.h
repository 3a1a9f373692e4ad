// Builds TextLine values for layout tests: one char box per character, `size` points wide.
#pragma once

#include <string>

#include "document/text_lines.h"

namespace mineru::document::testing {

inline TextLine Line(const std::string& ascii, double x, double y, double size = 10, bool bold = false) {
  TextLine line;
  double cw = size * 0.5;
  for (size_t i = 0; i < ascii.size(); ++i) {
    double x0 = x + static_cast<double>(i) * cw;
    line.chars.push_back(
        {static_cast<char32_t>(static_cast<unsigned char>(ascii[i])), {x0, y, x0 + cw, y + size}});
  }
  line.box = {x, y, x + static_cast<double>(ascii.size()) * cw, y + size};
  line.text = ascii;
  line.font_size = size;
  line.bold = bold;
  return line;
}

// The same line in font family `font`, with proportional advances (narrow glyphs "i l . , ( ) '" and
// spaces half as wide as the others), as a real proportional font measures.
inline TextLine InFont(TextLine line, const std::string& font) {
  double size = line.font_size;
  double x = line.box.x0;
  for (TextChar& c : line.chars) {
    bool narrow = c.rune == ' ' || c.rune == 'i' || c.rune == 'l' || c.rune == '.' || c.rune == ',' ||
                  c.rune == '(' || c.rune == ')' || c.rune == '\'';
    double w = size * (narrow ? 0.25 : 0.5);
    c.box.x0 = x;
    c.box.x1 = x + w;
    x += w;
  }
  line.box.x1 = x;
  line.font = font;
  return line;
}

}  // namespace mineru::document::testing
