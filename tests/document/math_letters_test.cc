#include "document/math_letters.h"

#include <gtest/gtest.h>

namespace mineru::document {
namespace {

TEST(MathLettersTest, MathAlphabetsReadAsThePlainLettersTheyStyle) {
  EXPECT_EQ(PlainMathLetter(U'\U0001D465'), U'x');       // italic small x
  EXPECT_EQ(PlainMathLetter(U'\U0001D400'), U'A');       // bold capital A
  EXPECT_EQ(PlainMathLetter(U'\U0001D6A3'), U'z');       // monospace small z, the last Latin letter
  EXPECT_EQ(PlainMathLetter(U'\U0001D53B'), U'D');       // double-struck capital D
  EXPECT_EQ(PlainMathLetter(U'\U0001D700'), U'\u03B5');  // italic epsilon symbol: epsilon
  EXPECT_EQ(PlainMathLetter(U'\U0001D6C1'), U'\u2207');  // bold nabla
  EXPECT_EQ(PlainMathLetter(U'\U0001D7C9'), U'\u03C0');  // the last Greek symbol, sans-serif bold italic pi
  EXPECT_EQ(PlainMathLetter(U'\U0001D7CE'), U'0');       // bold digit zero
  EXPECT_EQ(PlainMathLetter(U'\U0001D7FF'), U'9');       // monospace digit nine
  EXPECT_EQ(PlainMathLetter(U'x'), U'x');
  EXPECT_EQ(PlainMathLetter(U'\u03B1'), U'\u03B1');
}

}  // namespace
}  // namespace mineru::document
