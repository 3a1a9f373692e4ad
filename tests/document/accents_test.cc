#include "document/accents.h"

#include <gtest/gtest.h>

namespace mineru::document {
namespace {

TEST(AccentsTest, SpacingAccentsComposeWithTheLettersUnicodeHasThemFor) {
  EXPECT_EQ(ComposeAccent(U'o', U'\u00A8'), U'\u00F6');  // ö
  EXPECT_EQ(ComposeAccent(U'S', U'\u02C7'), U'\u0160');  // Š
  EXPECT_EQ(ComposeAccent(U'c', U'\u00B8'), U'\u00E7');  // ç
  EXPECT_EQ(ComposeAccent(U'o', U'\u02DD'), U'\u0151');  // ő
  EXPECT_EQ(ComposeAccent(U'a', U'`'), U'\u00E0');       // à
  // TeX sets an accent over a dotless i: it makes the accented i.
  EXPECT_EQ(ComposeAccent(U'\u0131', U'\u00B4'), U'\u00ED');  // í
  EXPECT_EQ(ComposeAccent(U'c', U'\u20DD'), U'\u00A9');       // ©, TeX's \copyright
  // No such letter, or no accent: nothing.
  EXPECT_EQ(ComposeAccent(U'q', U'\u00A8'), 0u);
  EXPECT_EQ(ComposeAccent(U'o', U'-'), 0u);
  EXPECT_TRUE(IsSpacingAccent(U'\u02DA'));
  EXPECT_FALSE(IsSpacingAccent(U'o'));
  EXPECT_FALSE(IsSpacingAccent(U'^'));  // a caret in code is no accent
}

}  // namespace
}  // namespace mineru::document
