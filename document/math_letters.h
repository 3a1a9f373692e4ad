// Letters and digits of Unicode's Mathematical Alphanumeric Symbols (U+1D400 to U+1D7FF: bold, italic,
// script, fraktur, double-struck, sans-serif and monospace alphabets), which math fonts (a word
// processor's equations in Cambria Math, LaTeX's unicode-math) set for the letters of formulas. They read
// as the plain letters they style ("𝑥" is "x"), as Unicode's compatibility decomposition has them.
#pragma once

namespace mineru::document {

// The plain letter or digit `c` styles, or `c` itself when it is none of them.
char32_t PlainMathLetter(char32_t c);

}  // namespace mineru::document
