// The row-invariant product (engine/row_invariant_linear.h) on every instruction set this CPU has: a
// row's result is the same bits alone and at any place among any number of rows, for bf16 and float32
// operands and K, N that leave partial tiles and partial lane steps; it agrees with the exact product
// (double precision) within float32 summation error; the plain path's order is AVX2's; the bf16 result
// is the float32 one rounded once; no element outside a weight is read.
#include "engine/row_invariant_linear.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <random>

namespace mineru::engine {
namespace {

std::vector<ProductIsa> AvailableIsas() {
  std::vector<ProductIsa> isas;
  for (ProductIsa isa : {ProductIsa::kPlain, ProductIsa::kAvx2, ProductIsa::kAvx512Bf16})
    if (ProductIsaAvailable(isa)) isas.push_back(isa);
  return isas;
}

at::Tensor Random(std::vector<int64_t> shape, uint64_t seed, at::ScalarType dtype) {
  at::Generator g = at::detail::createCPUGenerator(seed);
  return at::randn(shape, g, at::TensorOptions().dtype(at::kFloat)).to(dtype);
}

struct Operands {
  at::ScalarType x, w;
};

constexpr Operands kOperands[] = {
    {at::kBFloat16, at::kBFloat16}, {at::kFloat, at::kFloat}, {at::kFloat, at::kBFloat16}};

std::string Describe(ProductIsa isa, Operands o, int64_t k, int64_t n) {
  return std::string(ProductIsaName(isa)) + " x " + std::string(c10::toString(o.x)) + " w " +
         c10::toString(o.w) + " K " + std::to_string(k) + " N " + std::to_string(n);
}

TEST(RowInvariantLinear, ChosenIsaIsAvailableAndStable) {
  EXPECT_TRUE(ProductIsaAvailable(ChosenProductIsa()));
  EXPECT_EQ(ChosenProductIsa(), ChosenProductIsa());
  EXPECT_TRUE(ProductIsaAvailable(ProductIsa::kPlain));
  std::printf("[ isa      ] %s\n", std::string(ProductIsaName(ChosenProductIsa())).c_str());
}

// Row r computed alone, then within M rows at a random place, for M from 2 to 300: the same bits. The
// batched products run on every thread, the single rows on one (a split of the outputs changes nothing).
TEST(RowInvariantLinear, ARowsResultIsTheSameAloneAndAmongAnyNumberOfRows) {
  constexpr int64_t kPool = 300;
  std::mt19937 rng(7);
  for (ProductIsa isa : AvailableIsas()) {
    for (Operands o : kOperands) {
      for (auto [k, n] : {std::pair<int64_t, int64_t>{37, 5}, {131, 67}, {1001, 13}}) {
        if (isa == ProductIsa::kPlain && k > 200)
          continue;  // the slow path: one size with a long K is enough
        SCOPED_TRACE(Describe(isa, o, k, n));
        const at::Tensor pool = Random({kPool, k}, 11 + k, o.x);
        const at::Tensor w = Random({n, k}, 12 + n, o.w);
        const at::Tensor b = Random({n}, 13, at::kFloat);
        std::vector<at::Tensor> alone(kPool);
        const int threads = at::get_num_threads();
        at::set_num_threads(1);
        for (int64_t r = 0; r < kPool; ++r)
          alone[r] = RowInvariantLinear(pool.narrow(0, r, 1), w, b, at::kFloat, isa);
        at::set_num_threads(threads);
        for (int64_t m : {2, 3, 4, 5, 7, 16, 33, 300}) {
          std::vector<int64_t> rows(kPool);
          for (int64_t i = 0; i < kPool; ++i) rows[i] = i;
          std::shuffle(rows.begin(), rows.end(), rng);
          rows.resize(m);
          const at::Tensor x = pool.index_select(0, at::tensor(rows, at::kLong)).contiguous();
          const at::Tensor out = RowInvariantLinear(x, w, b, at::kFloat, isa);
          for (int64_t i = 0; i < m; ++i) {
            ASSERT_TRUE(at::equal(out[i], alone[rows[i]][0]))
                << "row " << rows[i] << " at place " << i << " of " << m << ": max difference "
                << (out[i] - alone[rows[i]][0]).abs().max().item<float>();
          }
        }
      }
    }
  }
}

// Within float32 summation error of the exact result: |got - exact| <= 2e-6 of Σ|x·w| (+ |bias|)
// over K up to 4,864 (a pairing of a product with the wrong term would be off by a percent of it).
TEST(RowInvariantLinear, AgreesWithTheExactProduct) {
  for (ProductIsa isa : AvailableIsas()) {
    for (Operands o : kOperands) {
      for (auto [m, k, n] :
           {std::tuple<int64_t, int64_t, int64_t>{3, 1, 3}, {5, 31, 7}, {17, 4864, 9}, {40, 897, 70}}) {
        SCOPED_TRACE(Describe(isa, o, k, n) + " M " + std::to_string(m));
        const at::Tensor x = Random({m, k}, 21 + k, o.x);
        const at::Tensor w = Random({n, k}, 22 + n, o.w);
        const at::Tensor b = Random({n}, 23, at::kFloat);
        const at::Tensor got = RowInvariantLinear(x, w, b, at::kFloat, isa).to(at::kDouble);
        const at::Tensor xd = x.to(at::kDouble), wd = w.to(at::kDouble), bd = b.to(at::kDouble);
        const at::Tensor exact = at::linear(xd, wd, bd);
        const at::Tensor scale = at::linear(xd.abs(), wd.abs()) + bd.abs();
        EXPECT_LT(((got - exact).abs() / scale).max().item<double>(), 2e-6);
      }
    }
  }
}

TEST(RowInvariantLinear, PlainSumsInAvx2sOrder) {
  if (!ProductIsaAvailable(ProductIsa::kAvx2)) GTEST_SKIP() << "no AVX2 on this CPU";
  for (Operands o : kOperands) {
    const at::Tensor x = Random({6, 203}, 31, o.x);
    const at::Tensor w = Random({11, 203}, 32, o.w);
    const at::Tensor b = Random({11}, 33, at::kFloat);
    EXPECT_TRUE(at::equal(RowInvariantLinear(x, w, b, at::kFloat, ProductIsa::kPlain),
                          RowInvariantLinear(x, w, b, at::kFloat, ProductIsa::kAvx2)))
        << c10::toString(o.x) << " x " << c10::toString(o.w);
  }
}

// bf16 results are the float32 results rounded once; several weights in one call give each weight's own
// call bit for bit, biases or not.
TEST(RowInvariantLinear, RoundsOnceAndServesSeveralWeights) {
  for (ProductIsa isa : AvailableIsas()) {
    const at::Tensor x = Random({9, 130}, 41, at::kBFloat16);
    const std::vector<at::Tensor> ws = {Random({67, 130}, 42, at::kBFloat16),
                                        Random({9, 130}, 43, at::kBFloat16),
                                        Random({130, 130}, 44, at::kBFloat16)};
    const std::vector<at::Tensor> bs = {Random({67}, 45, at::kBFloat16), at::Tensor(),
                                        Random({130}, 46, at::kFloat)};
    const std::vector<at::Tensor> rounded = RowInvariantLinears(x, ws, bs, at::kBFloat16, isa);
    for (size_t i = 0; i < ws.size(); ++i) {
      const at::Tensor f = RowInvariantLinear(x, ws[i], bs[i], at::kFloat, isa);
      EXPECT_TRUE(at::equal(rounded[i], f.to(at::kBFloat16))) << ProductIsaName(isa) << " weight " << i;
    }
  }
}

// A weight between two unreadable pages (its mapping ends where it ends, or starts where it starts):
// nothing outside it is read, and the result is the one for the same weight anywhere else.
TEST(RowInvariantLinear, ReadsNothingOutsideTheWeight) {
  const int64_t N = 7, K = 133;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (ProductIsa isa : AvailableIsas()) {
    for (Operands o : kOperands) {
      const at::Tensor w = Random({N, K}, 51, o.w);
      const size_t bytes = static_cast<size_t>(w.nbytes());
      const size_t inner = (bytes + page - 1) / page * page;
      for (bool at_start : {true, false}) {
        void* map =
            mmap(nullptr, inner + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ASSERT_NE(map, MAP_FAILED);
        char* base = static_cast<char*>(map);
        ASSERT_EQ(mprotect(base, page, PROT_NONE), 0);
        ASSERT_EQ(mprotect(base + page + inner, page, PROT_NONE), 0);
        char* at = at_start ? base + page : base + page + inner - bytes;
        std::memcpy(at, w.data_ptr(), bytes);
        const at::Tensor fenced = at::from_blob(at, {N, K}, o.w);
        for (int64_t rows : {1, 4, 5, 16}) {
          const at::Tensor x = Random({rows, K}, 52 + rows, o.x);
          EXPECT_TRUE(at::equal(RowInvariantLinear(x, fenced, {}, at::kFloat, isa),
                                RowInvariantLinear(x, w, {}, at::kFloat, isa)))
              << ProductIsaName(isa) << ", " << rows << " rows, weight at the "
              << (at_start ? "start" : "end");
        }
        munmap(map, inner + 2 * page);
      }
    }
  }
}

TEST(RowInvariantLinear, RefusesWhatItCannotCompute) {
  const at::Tensor x = Random({2, 8}, 61, at::kBFloat16);
  EXPECT_THROW(RowInvariantLinear(x, Random({3, 9}, 62, at::kBFloat16), {}, at::kFloat), c10::Error);
  EXPECT_THROW(RowInvariantLinear(x, Random({3, 8}, 63, at::kFloat), {}, at::kFloat), c10::Error);
  EXPECT_THROW(
      RowInvariantLinear(x, Random({3, 8}, 64, at::kBFloat16), Random({4}, 65, at::kFloat), at::kFloat),
      c10::Error);
  EXPECT_THROW(RowInvariantLinear(x, Random({3, 8}, 64, at::kBFloat16), {}, at::kHalf), c10::Error);
}

}  // namespace
}  // namespace mineru::engine
