// RMSNorm on the CPU (one pass per row) against the reference's formula: in float64 for float32 input,
// and for bfloat16 input against the reference's own sequence of bfloat16 operations.
#include "engine/rms_norm.h"

#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

constexpr double kEps = 1e-6;

// weight * (x * rsqrt(mean(x^2) + eps)), in float64.
at::Tensor Exact(const at::Tensor& x, const at::Tensor& w) {
  const at::Tensor xd = x.to(at::kDouble);
  return w.to(at::kDouble) * (xd * at::rsqrt(xd.pow(2).mean(-1, true) + kEps));
}

TEST(RmsNormTest, Float32MatchesTheFormula) {
  at::manual_seed(3);
  for (int64_t rows : {1, 16, 300}) {  // 300 rows split over threads
    const at::Tensor x = at::randn({rows, 896}) * 3.0;
    const at::Tensor w = at::randn({896});
    const at::Tensor got = RmsNorm(x, w, kEps);
    ASSERT_EQ(got.scalar_type(), at::kFloat);
    EXPECT_LT((got.to(at::kDouble) - Exact(x, w)).abs().max().item<double>(), 1e-5) << rows << " rows";
  }
}

TEST(RmsNormTest, Bfloat16RoundsWhereTheReferenceRounds) {
  at::manual_seed(4);
  const at::Tensor x = (at::randn({3, 5, 896}) * 2.0).to(at::kBFloat16);  // leading dimensions kept
  const at::Tensor w = at::randn({896}).to(at::kBFloat16);
  const at::Tensor got = RmsNorm(x, w, kEps);
  ASSERT_EQ(got.scalar_type(), at::kBFloat16);
  ASSERT_EQ(got.sizes(), x.sizes());
  // The reference: normalise in float32, round to bfloat16, multiply by the weight in bfloat16.
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor want = w * (xf * at::rsqrt(xf.pow(2).mean(-1, true) + kEps)).to(at::kBFloat16);
  // The mean square may differ in its last float bit (another summation order), which can move a
  // value lying at a bfloat16 rounding boundary by one step; anything more is a wrong rounding.
  const at::Tensor step = at::exp2(at::floor(at::log2(want.to(at::kDouble).abs().clamp_min(1e-30))) - 7);
  const at::Tensor off = (got.to(at::kDouble) - want.to(at::kDouble)).abs();
  EXPECT_TRUE((off <= step * 1.0001).all().item<bool>());
  EXPECT_GE((off == 0).to(at::kDouble).mean().item<double>(), 0.99);
}

TEST(RmsNormTest, RowsAreIndependent) {
  at::manual_seed(5);
  const at::Tensor x = at::randn({40, 64}).to(at::kBFloat16);
  const at::Tensor w = at::randn({64}).to(at::kBFloat16);
  const at::Tensor all = RmsNorm(x, w, kEps);
  for (int64_t r : {0, 17, 39}) EXPECT_TRUE(at::equal(all[r], RmsNorm(x.narrow(0, r, 1), w, kEps)[0])) << r;
}

}  // namespace
}  // namespace mineru::engine
