// The vision tower's attention against softmax(q·kᵀ/√d)·v computed directly in float64: the fused CPU
// kernel at the decoders' head sizes and SigLIP's (72), the unfused path at a size the kernel is not
// built for (8), in float32 and bfloat16.
#include "engine/vision_attention.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/attention_cpu_kernel.h"

namespace mineru::engine {
namespace {

at::Tensor Reference(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  const at::Tensor qd = q.to(at::kDouble), kd = k.to(at::kDouble), vd = v.to(at::kDouble);
  const at::Tensor scores = at::matmul(qd, kd.transpose(-1, -2)) / std::sqrt(static_cast<double>(q.size(3)));
  return at::matmul(at::softmax(scores, -1), vd);
}

TEST(VisionAttentionTest, EveryCropAttendsToAllItsOwnPatches) {
  at::manual_seed(5);
  const int64_t crops = 3, heads = 2, patches = 37;  // 37: the padded key column is exercised
  for (int64_t d : {8, 16, 72}) {
    EXPECT_EQ(VisionAttentionFused(true, d), d != 8 && CpuAttentionKernelAvailable(d)) << d;
    for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
      SCOPED_TRACE(::testing::Message() << "head_dim " << d << (dtype == at::kFloat ? " f32" : " bf16"));
      // Scores up to about ±30: the softmax is far from uniform.
      const at::Tensor q = (at::randn({crops, heads, patches, d}) * 2.5).to(dtype);
      const at::Tensor k = (at::randn({crops, heads, patches, d}) * 2.5).to(dtype);
      const at::Tensor v = at::randn({crops, heads, patches, d}).to(dtype);
      for (int64_t per_attention : {int64_t{1}, crops}) {
        const at::Tensor got = VisionAttention(q, k, v, per_attention);
        ASSERT_EQ(got.sizes(), q.sizes());
        EXPECT_EQ(got.scalar_type(), dtype);
        // float32: summation order only. bfloat16, fused: only the result is rounded (half a bf16
        // step of values up to ~4 is 0.008). bfloat16, unfused: the scores are rounded too, and a
        // score near 30 moves by up to 0.06 before the exponential.
        const bool fused = VisionAttentionFused(true, d);
        const double tolerance = dtype == at::kFloat ? 1e-5 : fused ? 0.02 : 0.15;
        EXPECT_LT((got.to(at::kDouble) - Reference(q, k, v)).abs().max().item<double>(), tolerance);
      }
    }
  }
}

// Crops never see each other: changing one crop's keys and values leaves the others' output as it was.
TEST(VisionAttentionTest, CropsAreIndependent) {
  at::manual_seed(6);
  const at::Tensor q = at::randn({2, 2, 20, 16}), k = at::randn({2, 2, 20, 16}),
                   v = at::randn({2, 2, 20, 16});
  const at::Tensor before = VisionAttention(q, k, v, 2);
  at::Tensor k2 = k.clone(), v2 = v.clone();
  k2[1].normal_();
  v2[1].normal_();
  const at::Tensor after = VisionAttention(q, k2, v2, 2);
  EXPECT_TRUE(at::equal(before[0], after[0]));
  EXPECT_FALSE(at::equal(before[1], after[1]));
}

}  // namespace
}  // namespace mineru::engine
