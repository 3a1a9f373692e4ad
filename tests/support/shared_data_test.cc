#include "tests/support/shared_data.h"

#include <gtest/gtest.h>

namespace mineru::testing {
namespace {

TEST(SharedDataTest, SourceDirIsThisCheckout) {
  EXPECT_TRUE(std::filesystem::exists(SourceDir() / "CMakeLists.txt"));
}

TEST(SharedDataTest, FindsGoldenIndexOrSkips) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  EXPECT_TRUE(std::filesystem::exists(shared / "golden" / "index.json"));
}

}  // namespace
}  // namespace mineru::testing
