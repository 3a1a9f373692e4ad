// The Qwen2 MLP on the CPU: with identity projections its output is the gated activation silu(x) · x
// itself, checked in float64 for float32, and for bfloat16 against silu computed in float32 and rounded,
// then the product rounded (a GPU's bfloat16 silu and multiply; libtorch's own CPU bfloat16 silu rounds
// inside the function and misses the nearest value by more than half a step), over inputs from far
// below to far above silu's bend.
#include "engine/swiglu_mlp.h"

#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

at::Tensor Inputs(int64_t rows, int64_t width) {
  at::manual_seed(12);
  at::Tensor x = at::randn({rows, width}) * 4.0;
  x[0].narrow(0, 0, 6).copy_(at::tensor({-100.0f, -88.0f, -20.0f, 0.0f, 20.0f, 100.0f}));
  return x;
}

TEST(SwigluMlpTest, Float32GatedActivationMatchesTheFormula) {
  const at::Tensor x = Inputs(16, 72);
  const at::Tensor eye = at::eye(72);
  const at::Tensor got = SwigluMlp(x, eye, eye, eye);
  const at::Tensor xd = x.to(at::kDouble);
  const at::Tensor want = xd / (1.0 + at::exp(-xd)) * xd;
  // Relative to the value, and absolute where the value is below float's normal range.
  EXPECT_TRUE(((got.to(at::kDouble) - want).abs() <= want.abs() * 1e-6 + 1e-30).all().item<bool>());
}

TEST(SwigluMlpTest, Bfloat16RoundsWhereTheReferenceRounds) {
  for (int64_t rows : {16, 40}) {
    const at::Tensor x = Inputs(rows, 128).to(at::kBFloat16);
    const at::Tensor eye = at::eye(128).to(at::kBFloat16);
    const at::Tensor got = SwigluMlp(x, eye, eye, eye);
    ASSERT_EQ(got.scalar_type(), at::kBFloat16);
    const at::Tensor xf = x.to(at::kFloat);
    const at::Tensor want = (at::silu(xf).to(at::kBFloat16).to(at::kFloat) * xf).to(at::kBFloat16);
    // Another exp may differ from libtorch's in the last float bit, which can move a value at a
    // bfloat16 rounding boundary by one step.
    const at::Tensor wd = want.to(at::kDouble);
    const at::Tensor step = at::exp2(at::floor(at::log2(wd.abs().clamp_min(1e-30))) - 7);
    const at::Tensor off = (got.to(at::kDouble) - wd).abs();
    EXPECT_TRUE((off <= step * 1.0001).all().item<bool>()) << rows << " rows";
    EXPECT_GE((off == 0).to(at::kDouble).mean().item<double>(), 0.99) << rows << " rows";
  }
}

// A row's activation is the same bits alone and among 300 rows split over the threads (a width with a
// tail past the last 8, so a split inside a row would move elements between the vector and scalar code).
TEST(SwigluMlpTest, ARowsResultDoesNotDependOnTheOtherRows) {
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    const at::Tensor x = Inputs(300, 131).to(dtype);
    const at::Tensor eye = at::eye(131).to(dtype);
    const at::Tensor all = SwigluMlp(x, eye, eye, eye);
    for (int64_t r : {0, 1, 149, 150, 299}) {
      EXPECT_TRUE(at::equal(SwigluMlp(x.narrow(0, r, 1), eye, eye, eye), all.narrow(0, r, 1)))
          << "row " << r << ", " << dtype;
    }
  }
}

}  // namespace
}  // namespace mineru::engine
