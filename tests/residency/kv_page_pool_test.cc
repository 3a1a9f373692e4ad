// KvPagePool on HostDevice: page tables, sharing, swap, random workloads with a shadow copy of every
// sequence's tokens, waste at 16-token pages over realistic length mixes.
#include "residency/kv_page_pool.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "residency/host_device.h"
#include "residency/residency_manager.h"

namespace mineru::residency {
namespace {

// Each token stores two floats: (sequence-of-origin tag, position), exact in float32.
constexpr uint64_t kBytesPerToken = 8;

struct PoolFixture {
  HostDevice device;
  std::unique_ptr<ResidencyManager> manager;
  KvPagePool* pool = nullptr;
  explicit PoolFixture(uint64_t num_pages, uint64_t pinned = 1 << 20) {
    ResidencyOptions o;
    o.gpu_budget_bytes = 64 << 20;
    o.pinned_budget_bytes = pinned;
    manager = std::move(ResidencyManager::Create(&device, o)).value();
    KvPoolOptions k;
    k.bytes_per_token = kBytesPerToken;
    k.dtype = DType::kF32;
    k.num_pages = num_pages;
    pool = manager->CreateKvPool(k).value();
  }
};

void WriteTokens(KvPagePool& pool, SequenceId seq, uint64_t from, uint64_t to, float tag) {
  auto table = pool.PageTable(seq).value();
  const uint64_t p = pool.options().page_size_tokens;
  for (uint64_t t = from; t < to; ++t) {
    at::Tensor slot = pool.storage()[table[t / p]][static_cast<int64_t>(t % p)];
    slot[0] = tag;
    slot[1] = static_cast<float>(t);
  }
}

::testing::AssertionResult ReadsBack(KvPagePool& pool, SequenceId seq, const std::vector<float>& tags) {
  auto table = pool.PageTable(seq).value();
  const uint64_t p = pool.options().page_size_tokens;
  // Gather the sequence's tokens through its page table, as the engine does.
  at::Tensor index = at::empty({static_cast<int64_t>(table.size())}, at::kLong);
  for (size_t i = 0; i < table.size(); ++i) index[static_cast<int64_t>(i)] = table[i];
  at::Tensor gathered = pool.storage().index_select(0, index).reshape({-1, 2});
  for (size_t t = 0; t < tags.size(); ++t) {
    const float tag = gathered[static_cast<int64_t>(t)][0].item<float>();
    const float pos = gathered[static_cast<int64_t>(t)][1].item<float>();
    if (tag != tags[t] || pos != static_cast<float>(t)) {
      return ::testing::AssertionFailure()
             << "sequence " << seq << " token " << t << " holds (" << tag << ", " << pos << ") expected ("
             << tags[t] << ", " << t << "), page " << table[t / p];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(KvPagePoolTest, AppendAllocatesPagesAndNeverTheNullPage) {
  PoolFixture f(9);  // 8 usable pages
  KvPagePool& pool = *f.pool;
  EXPECT_EQ(pool.storage().sizes().vec(), (std::vector<int64_t>{9, 16, 2}));
  ASSERT_TRUE(pool.AddSequence(1).ok());
  EXPECT_EQ(pool.AddSequence(1).code(), StatusCode::kAlreadyExists);
  auto touched = pool.AppendTokens(1, 20);
  ASSERT_TRUE(touched.ok());
  EXPECT_EQ(touched->size(), 2u);
  auto more = pool.AppendTokens(1, 5);  // 25 tokens: still 2 pages, writes into the second
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(*more, std::vector<PageId>{touched->back()});
  const std::vector<PageId> table = pool.PageTable(1).value();
  for (PageId p : table) {
    EXPECT_NE(p, kNullPage);
  }
  ASSERT_TRUE(pool.AddSequence(2).ok());
  auto too_many = pool.AppendTokens(2, 16 * 7);
  EXPECT_EQ(too_many.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(pool.NumTokens(2).value(), 0u) << "all or nothing";
  ASSERT_TRUE(pool.AppendTokens(2, 16 * 6).ok());
  EXPECT_EQ(pool.GetStats().pages_free, 0u);
  ASSERT_TRUE(pool.FreeSequence(1).ok());
  EXPECT_EQ(pool.GetStats().pages_free, 2u);
  EXPECT_TRUE(pool.CheckConsistency().ok());
  EXPECT_EQ(pool.AppendTokens(99, 1).status().code(), StatusCode::kNotFound);
}

TEST(KvPagePoolTest, ForkSharesFullPagesAndCopiesThePartialOne) {
  PoolFixture f(16);
  KvPagePool& pool = *f.pool;
  ASSERT_TRUE(pool.AddSequence(1).ok());
  ASSERT_TRUE(pool.AppendTokens(1, 40).ok());
  WriteTokens(pool, 1, 0, 40, 1.0f);
  ASSERT_TRUE(pool.Fork(1, 2, 37).ok());
  auto parent = pool.PageTable(1).value();
  auto child = pool.PageTable(2).value();
  ASSERT_EQ(child.size(), 3u);
  EXPECT_EQ(child[0], parent[0]);
  EXPECT_EQ(child[1], parent[1]);
  EXPECT_NE(child[2], parent[2]);
  EXPECT_EQ(pool.GetStats().pages_shared, 2u);
  std::vector<float> tags(37, 1.0f);
  EXPECT_TRUE(ReadsBack(pool, 2, tags));
  // The child appends into its own page; the parent's tokens stay.
  ASSERT_TRUE(pool.AppendTokens(2, 10).ok());
  WriteTokens(pool, 2, 37, 47, 2.0f);
  tags.resize(47, 2.0f);
  EXPECT_TRUE(ReadsBack(pool, 2, tags));
  EXPECT_TRUE(ReadsBack(pool, 1, std::vector<float>(40, 1.0f)));
  ASSERT_TRUE(pool.FreeSequence(1).ok());
  EXPECT_TRUE(ReadsBack(pool, 2, tags)) << "shared pages outlive the parent";
  EXPECT_EQ(pool.GetStats().pages_shared, 0u);
  EXPECT_EQ(pool.Fork(2, 3, 48).code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(pool.CheckConsistency().ok());
}

TEST(KvPagePoolTest, SwapOutAndInPreservesTheTokens) {
  PoolFixture f(8);
  KvPagePool& pool = *f.pool;
  ASSERT_TRUE(pool.AddSequence(1).ok());
  ASSERT_TRUE(pool.AppendTokens(1, 70).ok());  // 5 pages
  WriteTokens(pool, 1, 0, 70, 7.0f);
  ASSERT_TRUE(pool.SwapOut(1).ok());
  EXPECT_TRUE(pool.IsSwapped(1).value());
  EXPECT_EQ(pool.GetStats().pages_free, 7u);
  EXPECT_EQ(pool.GetStats().pages_swapped, 5u);
  // 5 pages of 128 bytes, rounded up to the pinned arena's 4 KiB granularity.
  EXPECT_EQ(f.manager->GetStats().tiers[1].kv_bytes, 4096u);
  // Another sequence takes (and overwrites) the freed pages meanwhile.
  ASSERT_TRUE(pool.AddSequence(2).ok());
  ASSERT_TRUE(pool.AppendTokens(2, 16 * 7).ok());
  WriteTokens(pool, 2, 0, 16 * 7, 9.0f);
  EXPECT_EQ(pool.SwapIn(1).code(), StatusCode::kResourceExhausted);
  ASSERT_TRUE(pool.FreeSequence(2).ok());
  ASSERT_TRUE(pool.SwapIn(1).ok());
  EXPECT_TRUE(ReadsBack(pool, 1, std::vector<float>(70, 7.0f)));
  EXPECT_EQ(f.manager->GetStats().tiers[1].kv_bytes, 0u);
  EXPECT_EQ(pool.SwapIn(1).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(pool.CheckConsistency().ok());
}

TEST(KvPagePoolTest, SwapOutBeyondThePinnedBudgetIsRefused) {
  PoolFixture f(64, 4096);
  KvPagePool& pool = *f.pool;
  ASSERT_TRUE(pool.AddSequence(1).ok());
  ASSERT_TRUE(pool.AppendTokens(1, 16 * 40).ok());  // 5 KiB of KV
  EXPECT_EQ(pool.SwapOut(1).code(), StatusCode::kResourceExhausted);
  EXPECT_FALSE(pool.IsSwapped(1).value());
  EXPECT_TRUE(pool.CheckConsistency().ok());
}

TEST(KvPagePoolTest, RandomWorkloadKeepsEveryTokenAndLeaksNoPage) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    PoolFixture f(200, 1 << 20);
    KvPagePool& pool = *f.pool;
    std::map<SequenceId, std::vector<float>> shadow;  // expected tags per token
    SequenceId next = 1;
    for (int step = 0; step < 2500; ++step) {
      const uint32_t r = rng() % 100;
      if (r < 15 || shadow.empty()) {
        ASSERT_TRUE(pool.AddSequence(next).ok());
        shadow[next] = {};
        ++next;
      } else {
        auto it = shadow.begin();
        std::advance(it, rng() % shadow.size());
        const SequenceId seq = it->first;
        const bool swapped = pool.IsSwapped(seq).value();
        if (r < 60) {
          const uint64_t n = 1 + rng() % 40;
          auto touched = pool.AppendTokens(seq, n);
          if (swapped) {
            ASSERT_EQ(touched.status().code(), StatusCode::kFailedPrecondition);
            continue;
          }
          if (!touched.ok()) {
            ASSERT_EQ(touched.status().code(), StatusCode::kResourceExhausted);
            continue;
          }
          const uint64_t from = it->second.size();
          WriteTokens(pool, seq, from, from + n, static_cast<float>(seq));
          it->second.resize(from + n, static_cast<float>(seq));
        } else if (r < 70) {
          if (swapped) continue;
          const uint64_t n = rng() % (it->second.size() + 1);
          Status st = pool.Fork(seq, next, n);
          if (!st.ok()) {
            ASSERT_EQ(st.code(), StatusCode::kResourceExhausted);
            continue;
          }
          shadow[next] = std::vector<float>(it->second.begin(), it->second.begin() + static_cast<int64_t>(n));
          ++next;
        } else if (r < 82) {
          ASSERT_TRUE(pool.FreeSequence(seq).ok());
          shadow.erase(it);
        } else if (r < 91) {
          Status st = swapped ? pool.SwapIn(seq) : pool.SwapOut(seq);
          if (!st.ok()) {
            ASSERT_EQ(st.code(), StatusCode::kResourceExhausted) << st.ToString();
          }
        } else {
          if (!swapped) {
            ASSERT_TRUE(ReadsBack(pool, seq, it->second));
          }
        }
      }
      ASSERT_TRUE(pool.CheckConsistency().ok()) << pool.CheckConsistency().ToString();
    }
    for (auto& [seq, tags] : shadow) {
      if (pool.IsSwapped(seq).value()) {
        Status st = pool.SwapIn(seq);
        if (!st.ok()) {
          ASSERT_EQ(st.code(), StatusCode::kResourceExhausted);
        }
      }
      if (!pool.IsSwapped(seq).value()) {
        ASSERT_TRUE(ReadsBack(pool, seq, tags));
      }
    }
    for (auto& [seq, tags] : shadow) {
      ASSERT_TRUE(pool.FreeSequence(seq).ok());
    }
    const KvStats st = pool.GetStats();
    EXPECT_EQ(st.pages_used, 0u);
    EXPECT_EQ(st.pages_free, 199u);
    EXPECT_EQ(f.manager->GetStats().tiers[1].kv_bytes, 0u);
  }
}

TEST(KvPagePoolTest, WasteAtSixteenTokenPagesOverRealisticLengths) {
  // Length mix of a document parser: a page's prompt is ~7.3k image tokens + ~60 text tokens, its output
  // 50..4000 tokens; small images (1485 image tokens) and short outputs too.
  std::mt19937 rng(42);
  PoolFixture f(40000);
  KvPagePool& pool = *f.pool;
  uint64_t tokens = 0;
  uint64_t slots = 0;
  for (SequenceId seq = 1; seq <= 32; ++seq) {
    const uint64_t image = rng() % 4 == 0 ? 1485 : (rng() % 2 ? 3699 : 7371);
    const uint64_t prompt = image + 40 + rng() % 40;
    const uint64_t output = 50 + rng() % 4000;
    ASSERT_TRUE(pool.AddSequence(seq).ok());
    ASSERT_TRUE(pool.AppendTokens(seq, prompt).ok());
    for (uint64_t t = 0; t < output; ++t) ASSERT_TRUE(pool.AppendTokens(seq, 1).ok());  // decode
    tokens += prompt + output;
    slots += (prompt + output + 15) / 16 * 16;
  }
  const KvStats st = pool.GetStats();
  EXPECT_EQ(st.tokens, tokens);
  EXPECT_NEAR(st.waste_fraction, 1.0 - static_cast<double>(tokens) / static_cast<double>(slots), 1e-12);
  EXPECT_LE(st.waste_fraction, 0.04);
  // Short chat-like sequences are the hard case for paging; still within 4% at 100+ tokens.
  PoolFixture g(40000);
  uint64_t t2 = 0, s2 = 0;
  for (SequenceId seq = 1; seq <= 200; ++seq) {
    const uint64_t len = 200 + rng() % 2000;
    ASSERT_TRUE(g.pool->AddSequence(seq).ok());
    ASSERT_TRUE(g.pool->AppendTokens(seq, len).ok());
    t2 += len;
    s2 += (len + 15) / 16 * 16;
  }
  EXPECT_NEAR(g.pool->GetStats().waste_fraction, 1.0 - static_cast<double>(t2) / static_cast<double>(s2),
              1e-12);
  EXPECT_LE(g.pool->GetStats().waste_fraction, 0.04);
}

TEST(KvPagePoolTest, PoolBytesCountAgainstTheGpuBudget) {
  HostDevice device;
  ResidencyOptions o;
  o.gpu_budget_bytes = 1 << 20;
  auto m = std::move(ResidencyManager::Create(&device, o)).value();
  KvPoolOptions k;
  k.bytes_per_token = 12 * 1024;  // the real model: 12 KiB per token
  k.dtype = DType::kBF16;
  k.budget_fraction = 0.5;
  auto pool = m->CreateKvPool(k);
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  EXPECT_EQ((*pool)->num_pages(), (512u << 10) / (16 * 12 * 1024));  // 2 pages
  const Stats s = m->GetStats();
  EXPECT_EQ(s.tiers[0].kv_bytes, 2u * 16 * 12 * 1024);
  EXPECT_LE(s.tiers[0].allocated_bytes, o.gpu_budget_bytes);
  EXPECT_EQ(m->CreateKvPool(k).status().code(), StatusCode::kAlreadyExists);
  KvPoolOptions bad = k;
  bad.bytes_per_token = 3;
  HostDevice d2;
  auto m2 = std::move(ResidencyManager::Create(&d2, o)).value();
  EXPECT_EQ(m2->CreateKvPool(bad).status().code(), StatusCode::kInvalidArgument);
  KvPoolOptions huge = k;
  huge.num_pages = 1000;
  EXPECT_EQ(m2->CreateKvPool(huge).status().code(), StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace mineru::residency
