// PagedAttention against a direct float64 evaluation of causal grouped-query softmax attention,
// for several key-block sizes, page sizes, head sizes and query chunks that start mid-sequence.
#include "engine/paged_attention.h"

#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

// softmax(q k^T / sqrt(d) + causal mask) v in float64, keys repeated per group.
at::Tensor Reference(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t start) {
  const int64_t n = q.size(0), heads = q.size(1), d = q.size(2), kvh = k.size(1);
  at::Tensor kr = k.to(at::kDouble).repeat_interleave(heads / kvh, 1);  // [L, heads, d]
  at::Tensor vr = v.to(at::kDouble).repeat_interleave(heads / kvh, 1);
  at::Tensor qd = q.to(at::kDouble).transpose(0, 1);  // [heads, n, d]
  at::Tensor scores = at::matmul(qd, kr.permute({1, 2, 0})) / std::sqrt(static_cast<double>(d));
  const int64_t total = k.size(0);
  at::Tensor qpos = at::arange(start, start + n, at::kLong).unsqueeze(1);
  at::Tensor kpos = at::arange(total, at::kLong).unsqueeze(0);
  scores.masked_fill_((kpos > qpos).unsqueeze(0), -INFINITY);
  at::Tensor out = at::matmul(at::softmax(scores, -1), vr.transpose(0, 1));  // [heads, n, d]
  return out.transpose(0, 1).reshape({n, heads * d});
}

// Every head size the fused CPU kernel is built for (16, 32, 64, 128: each way its weighted sum splits
// the head into vectors) and one it is not (8: ATen's path), with scores large enough that the softmax
// spans float's whole range.
TEST(PagedAttentionTest, MatchesDirectSoftmaxAttention) {
  at::manual_seed(7);
  const int64_t heads = 6, kvh = 2, total = 45;
  for (int64_t d : {8, 16, 32, 64, 128}) {
    SCOPED_TRACE(::testing::Message() << "head_dim " << d);
    at::Tensor k = at::randn({total, kvh, d});
    at::Tensor v = at::randn({total, kvh, d});
    at::Tensor q_all = at::randn({total, heads, d}) * (d == 64 ? 4.0 : 1.0);
    for (int64_t page : {1, 4, 16, 64}) {
      PagedKvCacheOptions o{1, kvh, d, page, 2 * PagedKvCache::PagesFor(total, page), at::kFloat, at::kCPU};
      auto cache = PagedKvCache::Create(o);
      ASSERT_TRUE(cache.ok());
      KvSequence filler, seq;
      // Interleave another sequence's pages so the sequence's pages are not contiguous.
      for (int64_t t = 0; t < total; t += page) {
        ASSERT_TRUE((*cache)->Reserve(filler, t + 1).ok());
        ASSERT_TRUE((*cache)->Reserve(seq, t + 1).ok());
      }
      ASSERT_TRUE((*cache)->Reserve(seq, total).ok());
      (*cache)->Write(0, seq, 0, k, v);
      for (int64_t block : {1, 5, 16, 512}) {
        for (auto [start, n] : {std::pair<int64_t, int64_t>{0, total}, {30, 15}, {44, 1}, {7, 9}}) {
          SCOPED_TRACE(::testing::Message() << "page " << page << " block " << block << " start " << start);
          at::Tensor q = q_all.narrow(0, start, n);
          at::Tensor got = PagedAttention(q, start, **cache, 0, seq, {heads, kvh, d, block});
          at::Tensor want = Reference(q, k.narrow(0, 0, start + n), v.narrow(0, 0, start + n), start);
          EXPECT_LT((got.to(at::kDouble) - want).abs().max().item<double>(), 1e-5);
        }
      }
      // Paging never changes the values read back.
      auto [k2, v2] = (*cache)->Read(0, seq, 0, total);
      EXPECT_TRUE(at::equal(k2, k));
      EXPECT_TRUE(at::equal(v2, v));
    }
  }
}

// A decode step of sequences of different lengths in one computation, each against the direct
// reference; the last token of each written by WriteTokens, and the null page (the padding) poisoned
// with NaN so that any use of it shows. K/V stored in every dtype the kernel reads (the reference
// takes the stored values), at head sizes that split the weighted sum differently.
TEST(PagedAttentionTest, DecodeStepOfManySequencesMatchesEachAlone) {
  at::manual_seed(11);
  const int64_t heads = 6, kvh = 2;
  const std::vector<int64_t> lengths = {1, 9, 23, 45, 16};
  for (auto [d, dtype, page] : {std::tuple<int64_t, at::ScalarType, int64_t>{16, at::kFloat, 1},
                                {16, at::kFloat, 4},
                                {16, at::kFloat, 16},
                                {64, at::kBFloat16, 4},
                                {128, at::kHalf, 16}}) {
    SCOPED_TRACE(::testing::Message() << "head_dim " << d << " " << dtype);
    auto cache = PagedKvCache::Create({1, kvh, d, page, 128, dtype, at::kCPU});
    ASSERT_TRUE(cache.ok());
    (*cache)->provider().storage().narrow(0, 0, 1).fill_(NAN);
    std::vector<KvSequence> seqs(lengths.size());
    std::vector<at::Tensor> ks, vs;
    for (int64_t t = 0; t < 45; t += page) {  // interleaved pages
      for (size_t i = 0; i < seqs.size(); ++i)
        ASSERT_TRUE((*cache)->Reserve(seqs[i], std::min(t + 1, lengths[i])).ok());
    }
    std::vector<const KvSequence*> ptrs;
    std::vector<int64_t> positions;
    std::vector<at::Tensor> last_k, last_v;
    for (size_t i = 0; i < seqs.size(); ++i) {
      ASSERT_TRUE((*cache)->Reserve(seqs[i], lengths[i]).ok());
      ks.push_back(at::randn({lengths[i], kvh, d}).to(dtype).to(at::kFloat));  // as stored
      vs.push_back(at::randn({lengths[i], kvh, d}).to(dtype).to(at::kFloat));
      if (lengths[i] > 1)
        (*cache)->Write(0, seqs[i], 0, ks[i].narrow(0, 0, lengths[i] - 1),
                        vs[i].narrow(0, 0, lengths[i] - 1));
      ptrs.push_back(&seqs[i]);
      positions.push_back(lengths[i] - 1);
      last_k.push_back(ks[i][lengths[i] - 1]);
      last_v.push_back(vs[i][lengths[i] - 1]);
    }
    (*cache)->WriteTokens(0, ptrs, positions, at::stack(last_k), at::stack(last_v));
    const at::Tensor q = at::randn({static_cast<int64_t>(seqs.size()), heads, d});
    for (int64_t block : {1, 5, 16, 512}) {
      SCOPED_TRACE(::testing::Message() << "page " << page << " block " << block);
      const at::Tensor got = PagedDecodeAttention(q, positions, **cache, 0, ptrs, {heads, kvh, d, block});
      ASSERT_EQ(got.sizes(), (std::vector<int64_t>{static_cast<int64_t>(seqs.size()), heads * d}));
      for (size_t i = 0; i < seqs.size(); ++i) {
        const at::Tensor want = Reference(q.narrow(0, i, 1), ks[i], vs[i], lengths[i] - 1);
        EXPECT_LT((got.narrow(0, i, 1).to(at::kDouble) - want).abs().max().item<double>(), 1e-5)
            << "sequence " << i;
      }
    }
  }
}

TEST(PagedKvCacheTest, PoolExhaustionIsAnErrorAndFreeReturnsPages) {
  auto cache = PagedKvCache::Create({2, 1, 4, 16, 3, at::kFloat, at::kCPU});
  ASSERT_TRUE(cache.ok());
  KvSequence a, b;
  EXPECT_TRUE((*cache)->Reserve(a, 33).ok());  // 3 pages
  Status s = (*cache)->Reserve(b, 1);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  (*cache)->Free(a);
  EXPECT_EQ((*cache)->free_pages(), 3);
  EXPECT_TRUE((*cache)->Reserve(b, 48).ok());
  EXPECT_FALSE(PagedKvCache::Create({2, 1, 4, 0, 3, at::kFloat, at::kCPU}).ok());
}

}  // namespace
}  // namespace mineru::engine
