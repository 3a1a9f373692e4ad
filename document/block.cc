#include "document/block.h"

#include <algorithm>
#include <array>
#include <utility>

namespace mineru::document {
namespace {

constexpr std::array<std::pair<BlockType, std::string_view>, 11> kTypeNames = {{
    {BlockType::kText, "text"},
    {BlockType::kTitle, "title"},
    {BlockType::kImage, "image"},
    {BlockType::kImageCaption, "image_caption"},
    {BlockType::kImageFootnote, "image_footnote"},
    {BlockType::kTable, "table"},
    {BlockType::kTableCaption, "table_caption"},
    {BlockType::kTableFootnote, "table_footnote"},
    {BlockType::kEquation, "equation"},
    {BlockType::kList, "list"},
    {BlockType::kIndex, "index"},
}};

}  // namespace

std::string_view BlockTypeName(BlockType type) {
  for (const auto& [t, name] : kTypeNames) {
    if (t == type) return name;
  }
  return "text";
}

std::optional<BlockType> ParseBlockType(std::string_view name) {
  for (const auto& [t, n] : kTypeNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

bool BlockTypeHasCrop(BlockType type) {
  return type == BlockType::kImage || type == BlockType::kTable || type == BlockType::kEquation;
}

BBox NormalizeBBox(BBox box) {
  if (box.x0 > box.x1) std::swap(box.x0, box.x1);
  if (box.y0 > box.y1) std::swap(box.y0, box.y1);
  auto clamp = [](int v) { return std::clamp(v, 0, 1000); };
  return {clamp(box.x0), clamp(box.y0), clamp(box.x1), clamp(box.y1)};
}

BBox TurnBack(BBox box, int degrees) {
  // A clockwise quarter turn took (x, y) of the page to (1000 - y, x).
  switch (((degrees / 90) % 4 + 4) % 4) {
    case 1:
      return NormalizeBBox({box.y0, 1000 - box.x1, box.y1, 1000 - box.x0});
    case 2:
      return NormalizeBBox({1000 - box.x1, 1000 - box.y1, 1000 - box.x0, 1000 - box.y0});
    case 3:
      return NormalizeBBox({1000 - box.y1, box.x0, 1000 - box.y0, box.x1});
    default:
      return box;
  }
}

std::string_view PageStatusName(PageStatus status) {
  switch (status) {
    case PageStatus::kOk:
      return "ok";
    case PageStatus::kNeedsOcr:
      return "needs_ocr";
    case PageStatus::kFailed:
      return "failed";
  }
  return "failed";
}

}  // namespace mineru::document
