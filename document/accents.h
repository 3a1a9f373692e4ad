// Accents set as glyphs of their own. TeX's original font encoding (OT1) has no accented letters: "\"o"
// is the diaeresis glyph placed over an "o", and a PDF's text layer gives the two apart ("G¨odel").
// These helpers tell such an accent and give the accented letter it makes with its base.
#pragma once

namespace mineru::document {

// A spacing accent that TeX and word processors set over or under a letter: diaeresis, acute, grave,
// circumflex, tilde, caron, breve, dot, ring, cedilla, double acute, macron, ogonek; and the circle
// drawn round a "c" or an "r" for © and ®.
bool IsSpacingAccent(char32_t c);

// The precomposed letter `letter` with `accent` makes ("o" and "¨": "ö"; a dotless "ı" takes its
// accent as "i" does), or 0 when Unicode has none.
char32_t ComposeAccent(char32_t letter, char32_t accent);

}  // namespace mineru::document
