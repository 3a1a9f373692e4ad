#include "residency/unit.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "residency/tier.h"

namespace mineru::residency {
namespace {

UnitSpec OneTensor(uint64_t offset, std::vector<int64_t> shape, DType dtype, uint64_t size) {
  UnitSpec u;
  u.name = "u";
  u.tensors.push_back(TensorSpec{"w", dtype, std::move(shape), 0, offset, size});
  return u;
}

TEST(UnitTest, ValidationCatchesEveryInconsistency) {
  const std::vector<uint64_t> regions = {1000};
  EXPECT_TRUE(ValidateUnit(OneTensor(8, {10, 10}, DType::kF32, 400), regions).ok());
  EXPECT_FALSE(ValidateUnit(OneTensor(8, {10, 10}, DType::kF32, 200), regions).ok()) << "size vs shape";
  EXPECT_FALSE(ValidateUnit(OneTensor(700, {10, 10}, DType::kF32, 400), regions).ok()) << "past the end";
  EXPECT_FALSE(ValidateUnit(OneTensor(UINT64_MAX - 10, {10, 10}, DType::kF32, 400), regions).ok())
      << "overflow";
  EXPECT_FALSE(ValidateUnit(OneTensor(8, {-1, 10}, DType::kF32, 40), regions).ok());
  EXPECT_FALSE(ValidateUnit(OneTensor(8, {0}, DType::kBF16, 0), regions).ok()) << "empty tensor";
  UnitSpec other_region = OneTensor(8, {2}, DType::kBF16, 4);
  other_region.tensors[0].region = 3;
  EXPECT_FALSE(ValidateUnit(other_region, regions).ok());
  UnitSpec dup = OneTensor(8, {2}, DType::kBF16, 4);
  dup.tensors.push_back(dup.tensors[0]);
  EXPECT_FALSE(ValidateUnit(dup, regions).ok());
  UnitSpec empty;
  empty.name = "e";
  EXPECT_FALSE(ValidateUnit(empty, regions).ok());
}

TEST(UnitTest, FootprintAlignsTensorsAndTheBuffer) {
  UnitSpec u = OneTensor(0, {3}, DType::kF32, 12);
  u.tensors.push_back(TensorSpec{"b", DType::kBF16, {5}, 0, 12, 10});
  EXPECT_EQ(UnitTensorOffsets(u), (std::vector<uint64_t>{0, kTensorAlignBytes}));
  EXPECT_EQ(UnitFootprintBytes(u), kBufferAlignBytes);
}

TEST(UnitTest, DemotionRankFollowsRuleOne) {
  const int n = 24;
  auto rank = [&](UnitKind k, int i = 0) { return DemotionRank(k, i, n); };
  // Vision first, then middle decoder layers, then first/last, projector, norms, embedding/lm_head.
  EXPECT_LT(rank(UnitKind::kVisionLayer, 26), rank(UnitKind::kDecoderLayer, 12));
  EXPECT_LT(rank(UnitKind::kVisionEmbedding), rank(UnitKind::kDecoderLayer, 5));
  for (int i = 1; i < n - 1; ++i) {
    EXPECT_LT(rank(UnitKind::kDecoderLayer, i), rank(UnitKind::kDecoderLayer, 0));
    EXPECT_LT(rank(UnitKind::kDecoderLayer, i), rank(UnitKind::kDecoderLayer, n - 1));
  }
  EXPECT_LT(rank(UnitKind::kDecoderLayer, n - 1), rank(UnitKind::kProjector));
  EXPECT_LT(rank(UnitKind::kProjector), rank(UnitKind::kNorm));
  EXPECT_LT(rank(UnitKind::kNorm), rank(UnitKind::kEmbedding));
  EXPECT_LT(rank(UnitKind::kNorm), rank(UnitKind::kLmHead));
  // Middle layers are demoted spread out: the first 4 demoted are far apart, not 4 neighbours.
  std::vector<std::pair<int64_t, int>> middle;
  for (int i = 1; i < n - 1; ++i) middle.emplace_back(rank(UnitKind::kDecoderLayer, i), i);
  std::sort(middle.begin(), middle.end());
  std::vector<int> first4;
  for (int k = 0; k < 4; ++k) first4.push_back(middle[k].second);
  std::sort(first4.begin(), first4.end());
  for (int k = 1; k < 4; ++k) {
    EXPECT_GE(first4[k] - first4[k - 1], 4) << "demoted layers bunch together";
  }
  // Ranks are distinct: a total order.
  for (size_t k = 1; k < middle.size(); ++k) {
    EXPECT_NE(middle[k].first, middle[k - 1].first);
  }
}

TEST(UnitTest, TierNamesRoundTrip) {
  for (Tier t : kAllTiers) {
    EXPECT_EQ(ParseTier(TierName(t)).value(), t);
  }
  EXPECT_EQ(ParseTier("vram").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mineru::residency
