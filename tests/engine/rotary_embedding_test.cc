// Rotary position embedding on the CPU (one pass per row) against the rotate-half formula: in float64
// for float32 input, and for bfloat16 input against the reference's own sequence of bfloat16
// operations (tables rounded, each product rounded, the sum rounded).
#include "engine/rotary_embedding.h"

#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

// x·cos + (-b, a)·sin with the tables in `dtype` and every operation in `dtype` (float64: exact).
at::Tensor Formula(const at::Tensor& x, const at::Tensor& positions, int64_t d, double theta,
                   at::ScalarType dtype) {
  const at::Tensor inv =
      1.0 / at::pow(theta, at::arange(0, d, 2, at::kLong).to(at::kFloat) / static_cast<double>(d));
  const at::Tensor freqs = positions.to(at::kFloat).unsqueeze(1) * inv.unsqueeze(0);
  const at::Tensor emb = at::cat({freqs, freqs}, -1);
  const at::Tensor cos = emb.cos().to(dtype).unsqueeze(1), sin = emb.sin().to(dtype).unsqueeze(1);
  const at::Tensor xd = x.to(dtype);
  const at::Tensor rotated = at::cat({-xd.narrow(-1, d / 2, d / 2), xd.narrow(-1, 0, d / 2)}, -1);
  return xd * cos + rotated * sin;
}

TEST(RotaryEmbeddingTest, Float32MatchesTheFormula) {
  at::manual_seed(8);
  const RotaryEmbedding rope(64, 1000000.0);
  for (int64_t rows : {1, 16, 700}) {  // 700 rows split over threads
    const at::Tensor x = at::randn({rows, 14, 64});
    const at::Tensor pos = at::randint(0, 32768, {rows}, at::kLong);
    const at::Tensor got = rope.Apply(x, pos);
    ASSERT_EQ(got.scalar_type(), at::kFloat);
    const at::Tensor want = Formula(x, pos, 64, 1000000.0, at::kDouble);
    EXPECT_LT((got.to(at::kDouble) - want).abs().max().item<double>(), 1e-5) << rows << " rows";
  }
}

TEST(RotaryEmbeddingTest, Bfloat16RoundsWhereTheReferenceRounds) {
  at::manual_seed(9);
  const RotaryEmbedding rope(128, 10000.0);
  const at::Tensor x = at::randn({33, 2, 128}).to(at::kBFloat16);
  const at::Tensor pos = at::arange(4000, 4033, at::kLong);
  const at::Tensor got = rope.Apply(x, pos);
  ASSERT_EQ(got.scalar_type(), at::kBFloat16);
  const at::Tensor want = Formula(x, pos, 128, 10000.0, at::kBFloat16);
  // cos and sin may differ in their last float bit from libtorch's (another implementation), which
  // can move a value at a bfloat16 rounding boundary by one step.
  const at::Tensor off = (got.to(at::kDouble) - want.to(at::kDouble)).abs();
  const at::Tensor step = at::exp2(at::floor(at::log2(want.to(at::kDouble).abs().clamp_min(1e-30))) - 7);
  EXPECT_TRUE((off <= step * 1.0001).all().item<bool>());
  EXPECT_GE((off == 0).to(at::kDouble).mean().item<double>(), 0.99);
}

TEST(RotaryEmbeddingTest, PositionZeroIsTheIdentity) {
  const RotaryEmbedding rope(16, 10000.0);
  const at::Tensor x = at::randn({1, 3, 16});
  EXPECT_TRUE(at::equal(rope.Apply(x, at::zeros({1}, at::kLong)), x));
}

}  // namespace
}  // namespace mineru::engine
