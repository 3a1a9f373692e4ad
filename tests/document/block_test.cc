#include "document/block.h"

#include <gtest/gtest.h>

namespace mineru::document {
namespace {

TEST(BlockTest, TypeNamesRoundTrip) {
  const char* names[] = {"text",           "title", "image",         "image_caption",
                         "image_footnote", "table", "table_caption", "table_footnote",
                         "equation",       "list",  "index"};
  for (const char* n : names) {
    auto t = ParseBlockType(n);
    ASSERT_TRUE(t.has_value()) << n;
    EXPECT_EQ(BlockTypeName(*t), n);
  }
  EXPECT_FALSE(ParseBlockType("Text").has_value());
  EXPECT_FALSE(ParseBlockType("").has_value());
  EXPECT_FALSE(ParseBlockType("figure").has_value());
}

TEST(BlockTest, CropTypesAreImageTableEquation) {
  EXPECT_TRUE(BlockTypeHasCrop(BlockType::kImage));
  EXPECT_TRUE(BlockTypeHasCrop(BlockType::kTable));
  EXPECT_TRUE(BlockTypeHasCrop(BlockType::kEquation));
  EXPECT_FALSE(BlockTypeHasCrop(BlockType::kText));
  EXPECT_FALSE(BlockTypeHasCrop(BlockType::kImageCaption));
}

TEST(BlockTest, NormalizeSwapsAndClamps) {
  EXPECT_EQ(NormalizeBBox({900, 800, 100, 50}), (BBox{100, 50, 900, 800}));
  EXPECT_EQ(NormalizeBBox({-5, 10, 1200, 2000}), (BBox{0, 10, 1000, 1000}));
  EXPECT_TRUE((BBox{5, 5, 5, 9}).empty());
}

TEST(BlockTest, PageStatusNames) {
  EXPECT_EQ(PageStatusName(PageStatus::kOk), "ok");
  EXPECT_EQ(PageStatusName(PageStatus::kNeedsOcr), "needs_ocr");
  EXPECT_EQ(PageStatusName(PageStatus::kFailed), "failed");
}

TEST(BlockTest, TurnBackUndoesAQuarterTurnOfThePage) {
  // A box near the top left of a page, as seen on the page turned 90, 180 and 270 degrees clockwise.
  const BBox box{100, 50, 300, 150};
  EXPECT_EQ(TurnBack(box, 0), box);
  EXPECT_EQ(TurnBack({850, 100, 950, 300}, 90), box);
  EXPECT_EQ(TurnBack({700, 850, 900, 950}, 180), box);
  EXPECT_EQ(TurnBack({50, 700, 150, 900}, 270), box);
}

}  // namespace
}  // namespace mineru::document
