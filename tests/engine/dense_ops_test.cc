// The model's dense products on the CPU in bfloat16 (dense_ops.h): checked against the exact product of
// the same bfloat16 operands computed in double precision, rounded to bfloat16 once — the definition of
// a bf16 GEMM with float32 accumulation. Float32 accumulation may move a result that lies within a
// rounding error of a tie by one bf16 step, never more.
#include "engine/dense_ops.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "engine/bf16_rows_kernel.h"
#include "engine/row_invariant_linear.h"

namespace mineru::engine {
namespace {

at::Tensor RandomBf16(std::vector<int64_t> shape, uint64_t seed) {
  at::Generator g = at::detail::createCPUGenerator(seed);
  return at::randn(shape, g, at::TensorOptions().dtype(at::kFloat)).to(at::kBFloat16);
}

// Exact x·wᵀ + bias of bf16 values, in double.
at::Tensor ExactLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
  at::Tensor r = at::matmul(x.to(at::kDouble), w.to(at::kDouble).t());
  return bias.defined() ? r + bias.to(at::kDouble) : r;
}

// Every element within one bf16 step of the exact value rounded to bf16, and nearly all equal to it.
void ExpectBf16Rounded(const at::Tensor& got, const at::Tensor& exact) {
  ASSERT_EQ(got.scalar_type(), at::kBFloat16);
  ASSERT_EQ(got.sizes(), exact.sizes());
  const at::Tensor want = exact.to(at::kBFloat16).to(at::kDouble);
  const at::Tensor g = got.to(at::kDouble);
  // One bf16 step at the magnitude of the result: 2^(exponent - 7).
  const at::Tensor step = at::exp2(at::floor(at::log2(want.abs().clamp_min(1e-30))) - 7);
  const at::Tensor off = (g - want).abs();
  EXPECT_TRUE((off <= step * 1.0001).all().item<bool>())
      << "max offset " << (off / step).max().item<double>() << " steps";
  const double equal = (off == 0).to(at::kDouble).mean().item<double>();
  EXPECT_GE(equal, 0.98) << "only " << equal << " of the elements equal the rounded exact product";
}

// Rows on both sides of the few-rows kernel's limit, K with and without a tail of fewer than 8, odd N.
TEST(DenseOps, Bf16LinearEqualsTheRoundedExactProduct) {
  for (int64_t rows : {1, 2, 3, 4, 5, 7, 16, 17, 40}) {
    for (int64_t k : {8, 37, 896}) {
      for (int64_t n : {1, 3, 130}) {
        for (bool with_bias : {false, true}) {
          SCOPED_TRACE(testing::Message() << rows << "x" << k << " by " << n << (with_bias ? " + bias" : ""));
          const at::Tensor x = RandomBf16({rows, k}, 1 + rows);
          const at::Tensor w = RandomBf16({n, k}, 2 + n);
          const at::Tensor bias = with_bias ? RandomBf16({n}, 3) : at::Tensor();
          ExpectBf16Rounded(Linear(x, w, bias), ExactLinear(x, w, bias));
        }
      }
    }
  }
}

TEST(DenseOps, Bf16LinearKeepsLeadingDimensionsAndTakesStridedInput) {
  const at::Tensor x = RandomBf16({3, 5, 64}, 7).transpose(0, 1);  // [5, 3, 64], not contiguous
  const at::Tensor w = RandomBf16({24, 64}, 8);
  const at::Tensor y = Linear(x, w);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{5, 3, 24}));
  ExpectBf16Rounded(y.reshape({15, 24}), ExactLinear(x.reshape({15, 64}), w, {}));
}

TEST(DenseOps, Bf16LinearAgreesWithLibtorchsOwnBf16Gemm) {
  for (int64_t rows : {1, 9, 33}) {
    const at::Tensor x = RandomBf16({rows, 96}, 11);
    const at::Tensor w = RandomBf16({48, 96}, 12);
    const at::Tensor b = RandomBf16({48}, 13);
    ExpectBf16Rounded(Linear(x, w, b), at::linear(x, w, b).to(at::kDouble));
  }
}

TEST(DenseOps, FewRowsKernelMatchesFloat32Gemm) {
  if (!Bf16RowsKernelAvailable()) GTEST_SKIP() << "this CPU has no AVX2/FMA";
  // Both paths (weights widened in registers up to 4 rows, broadcast from a widened buffer above), a
  // depth with and without a tail past the last 16, outputs that leave partial tiles in every task.
  for (int64_t depth : {901, 896}) {
    for (int64_t rows : {1, 3, 4, 5, 8, 9, 16}) {
      const at::Tensor x = at::randn({rows, depth});
      const at::Tensor w = RandomBf16({67, depth}, 21);
      const at::Tensor b = at::randn({67});
      const at::Tensor got = Bf16RowsLinear(x, w, b);
      const at::Tensor xd = x.to(at::kDouble), wd = w.to(at::kDouble);
      const at::Tensor want = at::linear(xd, wd, b.to(at::kDouble));
      // float32 sums in any order: within 1e-5 of the sum of the terms' magnitudes (a product paired
      // with the wrong x value is off by about 3 % of it).
      const at::Tensor scale = at::linear(xd.abs(), wd.abs()) + b.to(at::kDouble).abs();
      EXPECT_LT(((got.to(at::kDouble) - want).abs() / scale).max().item<double>(), 1e-5)
          << rows << " rows, depth " << depth;
    }
  }
}

TEST(DenseOps, FewRowsKernelRoundsItsBfloat16OutputOnce) {
  if (!Bf16RowsKernelAvailable()) GTEST_SKIP() << "this CPU has no AVX2/FMA";
  for (int64_t rows : {2, 7, 16}) {
    const at::Tensor x = RandomBf16({rows, 200}, 41);
    const at::Tensor w = RandomBf16({37, 200}, 42);
    const at::Tensor b = RandomBf16({37}, 43);
    const at::Tensor rounded = Bf16RowsLinear(x, w, b, at::kBFloat16);
    ASSERT_EQ(rounded.scalar_type(), at::kBFloat16);
    EXPECT_TRUE(at::equal(rounded, Bf16RowsLinear(x.to(at::kFloat), w, b).to(at::kBFloat16)))
        << rows << " rows";
  }
}

// A weight's storage between two unreadable pages (a mapping that ends where the weight does, or
// starts where it starts): the kernel reads no element outside the weight on either path, and gives
// what it gives for the same weight anywhere else, bit for bit.
TEST(DenseOps, FewRowsKernelReadsNothingOutsideTheWeight) {
  if (!Bf16RowsKernelAvailable()) GTEST_SKIP() << "this CPU has no AVX2/FMA";
  const int64_t N = 7, K = 133;  // a tail past the last 8 in every row
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = static_cast<size_t>(N * K) * 2;
  const size_t inner = (bytes + page - 1) / page * page;
  const at::Tensor w = RandomBf16({N, K}, 51);
  for (bool at_start : {true, false}) {
    void* map = mmap(nullptr, inner + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(map, MAP_FAILED);
    char* base = static_cast<char*>(map);
    ASSERT_EQ(mprotect(base, page, PROT_NONE), 0);
    ASSERT_EQ(mprotect(base + page + inner, page, PROT_NONE), 0);
    char* at = at_start ? base + page : base + page + inner - bytes;
    std::memcpy(at, w.data_ptr(), bytes);
    const at::Tensor fenced = at::from_blob(at, {N, K}, at::kBFloat16);
    for (int64_t rows : {1, 4, 5, 16}) {
      const at::Tensor x = at::randn({rows, K});
      EXPECT_TRUE(at::equal(Bf16RowsLinear(x, fenced, {}), Bf16RowsLinear(x, w, {})))
          << rows << " rows, weight at the " << (at_start ? "start" : "end") << " of its mapping";
    }
    munmap(map, inner + 2 * page);
  }
}

// Several weights in one pass give each weight's own Linear bit for bit, in both dtypes, on both sides of
// the few-rows kernel's limit, with and without biases.
TEST(DenseOps, LinearsEqualOneLinearPerWeight) {
  for (at::ScalarType dtype : {at::kBFloat16, at::kFloat}) {
    for (int64_t rows : {1, 5, 16, 40}) {
      SCOPED_TRACE(testing::Message() << rows << " rows, " << dtype);
      const at::Tensor x = RandomBf16({rows, 96}, 51).to(dtype);
      const std::vector<at::Tensor> ws = {RandomBf16({67, 96}, 52).to(dtype),
                                          RandomBf16({9, 96}, 53).to(dtype),
                                          RandomBf16({130, 96}, 54).to(dtype)};
      const std::vector<at::Tensor> bs = {RandomBf16({67}, 55).to(dtype), at::Tensor(),
                                          RandomBf16({130}, 56).to(dtype)};
      const std::vector<at::Tensor> got = Linears(x, ws, bs);
      ASSERT_EQ(got.size(), ws.size());
      for (size_t i = 0; i < ws.size(); ++i) EXPECT_TRUE(at::equal(got[i], Linear(x, ws[i], bs[i]))) << i;
      const std::vector<at::Tensor> no_bias = Linears(x, ws);
      for (size_t i = 0; i < ws.size(); ++i) EXPECT_TRUE(at::equal(no_bias[i], Linear(x, ws[i]))) << i;
    }
  }
}

// float32 on the CPU: Linear and the patch Conv2d are the row-invariant product (within float32
// summation error of libtorch's), Matmul is libtorch's; in the opt-in kFastest mode all three are
// libtorch's own bit for bit.
TEST(DenseOps, Float32IsTheRowInvariantProductAndLibtorchsWhenFastest) {
  const at::Tensor x = at::randn({9, 40});
  const at::Tensor w = at::randn({12, 40});
  const at::Tensor b = at::randn({12});
  EXPECT_TRUE(at::equal(Linear(x, w, b), RowInvariantLinear(x, w, b, at::kFloat)));
  EXPECT_TRUE(at::allclose(Linear(x, w, b), at::linear(x, w, b), 1e-5, 1e-5));
  const at::Tensor a = at::randn({2, 3, 5, 8});
  const at::Tensor c = at::randn({2, 3, 8, 4});
  EXPECT_TRUE(at::equal(Matmul(a, c), at::matmul(a, c)));
  const at::Tensor img = at::randn({2, 3, 29, 30});  // borders narrower than a patch are dropped
  const at::Tensor k = at::randn({6, 3, 14, 14});
  const at::Tensor kb = at::randn({6});
  const at::Tensor conv = Conv2d(img, k, kb, 14);
  ASSERT_EQ(conv.sizes(), (std::vector<int64_t>{2, 6, 2, 2}));
  EXPECT_TRUE(at::allclose(conv, at::conv2d(img, k, kb, {14, 14}), 1e-4, 1e-4));
  SetProductMode(ProductMode::kFastest);
  EXPECT_TRUE(at::equal(Linear(x, w, b), at::linear(x, w, b)));
  EXPECT_TRUE(at::equal(Conv2d(img, k, kb, 14), at::conv2d(img, k, kb, {14, 14})));
  SetProductMode(ProductMode::kRowInvariant);
}

// The patch embedding in bf16: each patch's features are the same bits whichever crops share the call.
TEST(DenseOps, Bf16PatchConvOfACropIsTheSameInAnyBatch) {
  const at::Tensor img = RandomBf16({5, 3, 28, 28}, 36);
  const at::Tensor k = RandomBf16({6, 3, 14, 14}, 37);
  const at::Tensor kb = RandomBf16({6}, 38);
  const at::Tensor all = Conv2d(img, k, kb, 14);
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_TRUE(at::equal(Conv2d(img.narrow(0, i, 1), k, kb, 14), all.narrow(0, i, 1)));
}

TEST(DenseOps, Bf16MatmulAndConvAreTheRoundedExactResults) {
  const at::Tensor a = RandomBf16({2, 3, 5, 40}, 31);
  const at::Tensor c = RandomBf16({2, 3, 40, 7}, 32);
  ExpectBf16Rounded(Matmul(a, c), at::matmul(a.to(at::kDouble), c.to(at::kDouble)));
  const at::Tensor img = RandomBf16({2, 3, 28, 28}, 33);
  const at::Tensor k = RandomBf16({6, 3, 14, 14}, 34);
  const at::Tensor kb = RandomBf16({6}, 35);
  ExpectBf16Rounded(Conv2d(img, k, kb, 14),
                    at::conv2d(img.to(at::kDouble), k.to(at::kDouble), kb.to(at::kDouble), {14, 14}));
}

}  // namespace
}  // namespace mineru::engine
