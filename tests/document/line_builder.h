// Builds TextLine values for layout tests: one char box per character, `size` points wide.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

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

// One line of words, each starting at its x (`size` / 2 points a character), a space between each two
// reaching across the gap: a justified line's stretched spaces, columns in one line.
inline TextLine LineOfWords(const std::vector<std::pair<std::string, double>>& words, double y,
                            double size = 10, bool bold = false) {
  TextLine line;
  const double cw = size * 0.5;
  for (const auto& [word, x] : words) {
    if (!line.chars.empty()) {
      line.chars.push_back({U' ', {line.chars.back().box.x1, y, x, y + size}});
      line.text.push_back(' ');
    }
    for (size_t i = 0; i < word.size(); ++i) {
      const double x0 = x + static_cast<double>(i) * cw;
      line.chars.push_back(
          {static_cast<char32_t>(static_cast<unsigned char>(word[i])), {x0, y, x0 + cw, y + size}});
    }
    line.text += word;
  }
  line.box = {words.front().second, y, line.chars.back().box.x1, y + size};
  line.font_size = size;
  line.bold = bold;
  return line;
}

// A line set flush right, ending at `right` (a figure in a column of figures).
inline TextLine LineEndingAt(const std::string& ascii, double right, double y, double size = 10) {
  return Line(ascii, right - size * 0.5 * static_cast<double>(ascii.size()), y, size);
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

// A row of a right-to-left table as the text layer gives it (logical order): `label` (Hebrew or Arabic)
// ending at x1, its letters placed leftwards, then `number` (digits read left to right) from x0; 5 pt per
// character, size 10.
inline TextLine RtlRow(const std::u32string& label, double x1, const std::string& number, double x0,
                       double y) {
  TextLine line;
  for (size_t i = 0; i < label.size(); ++i) {
    double right = x1 - 5.0 * static_cast<double>(i);
    line.chars.push_back({label[i], {right - 5, y, right, y + 10}});
    AppendUtf8(line.text, label[i]);
  }
  line.chars.push_back({U' ', {}});
  line.text += " " + number;
  for (size_t i = 0; i < number.size(); ++i) {
    double left = x0 + 5.0 * static_cast<double>(i);
    line.chars.push_back({static_cast<char32_t>(number[i]), {left, y, left + 5, y + 10}});
  }
  line.box = {x0, y, x1, y + 10};
  line.font_size = 10;
  line.rtl = true;
  return line;
}

// A line of full-width text (Chinese, Japanese): each character `size` points wide, as CJK fonts set them.
inline TextLine WideLine(const std::u32string& text, double x, double y, double size = 10) {
  TextLine line;
  for (size_t i = 0; i < text.size(); ++i) {
    const double x0 = x + size * static_cast<double>(i);
    line.chars.push_back({text[i], {x0, y, x0 + size, y + size}});
    AppendUtf8(line.text, text[i]);
  }
  line.box = {x, y, x + size * static_cast<double>(text.size()), y + size};
  line.font_size = size;
  return line;
}

// A glyph as a text layer gives it: `size` points, its origin at (x, baseline), its box the font's
// ascent (0.75 em) and descent (0.25 em), half an em wide.
inline TextChar Glyph(char32_t rune, double x, double baseline, double size = 10, bool math = true) {
  TextChar c;
  c.rune = rune;
  c.box = {x, baseline - 0.75 * size, x + 0.5 * size, baseline + 0.25 * size};
  c.size = static_cast<float>(size);
  c.baseline = static_cast<float>(baseline);
  c.math = math;
  return c;
}

// A glyph of the extension font, its box its ink (a big operator, a tall delimiter).
inline TextChar Ink(char32_t rune, Rect box, double size = 10) {
  TextChar c;
  c.rune = rune;
  c.box = box;
  c.size = static_cast<float>(size);
  c.baseline = static_cast<float>(box.y0);
  c.math = true;
  c.ink = true;
  return c;
}

// Glyphs of `text` (ASCII) side by side from x, half their size apart.
inline std::vector<TextChar> Glyphs(const std::string& text, double x, double baseline, double size = 10,
                                    bool math = true) {
  std::vector<TextChar> out;
  for (char ch : text) {
    out.push_back(Glyph(static_cast<char32_t>(ch), x, baseline, size, math));
    x += 0.5 * size;
  }
  return out;
}

inline std::vector<TextChar> Join(std::initializer_list<std::vector<TextChar>> parts) {
  std::vector<TextChar> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A line of a page made of glyphs (its text their characters).
inline TextLine LineOf(const std::vector<TextChar>& glyphs) {
  TextLine line;
  line.chars = glyphs;
  line.box = glyphs.front().box;
  for (const TextChar& c : glyphs) {
    line.box = line.box.Union(c.box);
    AppendUtf8(line.text, c.rune);
  }
  line.font_size = glyphs.front().size;
  line.font = glyphs.front().math ? "CMMI10" : "CMR10";
  return line;
}

}  // namespace mineru::document::testing
