// PagedKvCache over both page providers: engine-owned pages (LocalKvPages) and the residency manager's
// KvPagePool (ResidencyKvPages). With a manager the pages really are the pool's: its stats count them
// while a sequence holds them and drop to 0 when it is freed, page 0 is never handed out, keys and values
// written through the cache are the bytes of pool.storage(), and attention over the pool's pages equals
// attention over engine-owned pages bit for bit.
#include "engine/paged_kv_cache.h"

#include <gtest/gtest.h>

#include "engine/local_kv_pages.h"
#include "engine/paged_attention.h"
#include "residency/host_device.h"
#include "residency/residency_manager.h"

namespace mineru::engine {
namespace {

constexpr int64_t kLayers = 3, kKvHeads = 2, kHeadDim = 4, kPage = 5;

PagedKvCacheOptions Options(int64_t pages, residency::ResidencyManager* manager) {
  PagedKvCacheOptions o;
  o.num_layers = kLayers;
  o.num_kv_heads = kKvHeads;
  o.head_dim = kHeadDim;
  o.page_size_tokens = kPage;
  o.num_pages = pages;
  o.residency = manager;
  return o;
}

std::unique_ptr<residency::ResidencyManager> MakeManager(residency::HostDevice& device, uint64_t gpu_bytes) {
  residency::ResidencyOptions ro;
  ro.gpu_budget_bytes = gpu_bytes;
  ro.pinned_budget_bytes = 0;
  auto m = residency::ResidencyManager::Create(&device, ro);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

TEST(PagedKvCacheTest, PagesComeFromTheResidencyPool) {
  residency::HostDevice device;
  auto manager = MakeManager(device, 1 << 20);
  ASSERT_NE(manager, nullptr);
  auto cache = PagedKvCache::Create(Options(8, manager.get()));
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  residency::KvPagePool* pool = manager->kv_pool();
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->num_pages(), 9u);  // 8 usable + the null page
  EXPECT_EQ(pool->options().bytes_per_token, uint64_t{kLayers * 2 * kKvHeads * kHeadDim * 4});
  EXPECT_EQ((*cache)->num_pages(), 8);
  // The pool's region is charged to kGpu.
  const auto gpu = manager->GetStats().tiers[static_cast<int>(residency::Tier::kGpu)];
  EXPECT_GE(gpu.kv_bytes, pool->num_pages() * pool->page_size_bytes());

  KvSequence a, b;
  ASSERT_TRUE((*cache)->Reserve(a, 12).ok());  // 3 pages
  ASSERT_TRUE((*cache)->Reserve(b, 4).ok());   // 1 page
  ASSERT_TRUE((*cache)->Reserve(a, 13).ok());  // still 3
  EXPECT_EQ(manager->GetStats().kv.pages_used, 4u);
  EXPECT_EQ(manager->GetStats().kv.sequences, 2u);
  EXPECT_EQ((*cache)->free_pages(), 4);
  for (const KvSequence* s : {&a, &b}) {
    for (int64_t p : s->pages()) EXPECT_NE(p, residency::kNullPage);
  }
  EXPECT_TRUE(pool->CheckConsistency().ok());

  // What the cache writes is the pool's memory: token t of layer l lies in storage[page][t % page].
  at::manual_seed(3);
  const at::Tensor k = at::randn({13, kKvHeads, kHeadDim});
  const at::Tensor v = at::randn({13, kKvHeads, kHeadDim});
  for (int64_t l = 0; l < kLayers; ++l) (*cache)->Write(l, a, 0, k + l, v - l);
  const at::Tensor per_token = pool->storage().view({-1, kPage, kLayers, 2, kKvHeads, kHeadDim});
  for (int64_t t : {0, 4, 5, 12}) {
    const int64_t page = a.pages()[t / kPage];
    EXPECT_TRUE(at::equal(per_token[page][t % kPage][2][0], k[t] + 2));
    EXPECT_TRUE(at::equal(per_token[page][t % kPage][1][1], v[t] - 1));
  }
  auto [k1, v1] = (*cache)->Read(1, a, 0, 13);
  EXPECT_TRUE(at::equal(k1, k + 1));
  EXPECT_TRUE(at::equal(v1, v - 1));

  // Out of pages: an error, and nothing is taken.
  KvSequence c;
  EXPECT_EQ((*cache)->Reserve(c, 5 * kPage).code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(manager->GetStats().kv.pages_used, 4u);

  (*cache)->Free(a);
  (*cache)->Free(b);
  (*cache)->Free(c);
  EXPECT_EQ(manager->GetStats().kv.pages_used, 0u);
  EXPECT_EQ(manager->GetStats().kv.sequences, 0u);
  EXPECT_EQ((*cache)->peak_pages_used(), 4);
  EXPECT_TRUE(pool->CheckConsistency().ok());
}

TEST(PagedKvCacheTest, AnExistingPoolIsReusedWhenItsPagesFit) {
  residency::HostDevice device;
  auto manager = MakeManager(device, 1 << 20);
  ASSERT_NE(manager, nullptr);
  {
    auto first = PagedKvCache::Create(Options(8, manager.get()));
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    KvSequence held;
    ASSERT_TRUE((*first)->Reserve(held, 3).ok());
    // A second cache on the same pool: its sequences get their own ids and pages.
    auto second = PagedKvCache::Create(Options(8, manager.get()));
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    KvSequence other;
    ASSERT_TRUE((*second)->Reserve(other, 3).ok());
    EXPECT_NE(other.pages()[0], held.pages()[0]);
    EXPECT_EQ(manager->GetStats().kv.pages_used, 2u);
    // `held` and `other` are never freed by hand: the caches free them when they go.
  }
  EXPECT_EQ(manager->GetStats().kv.pages_used, 0u);
  EXPECT_EQ(manager->GetStats().kv.sequences, 0u);
  PagedKvCacheOptions other_page = Options(8, manager.get());
  other_page.page_size_tokens = 16;
  Status s = PagedKvCache::Create(other_page).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("16"), std::string::npos) << s.ToString();
}

TEST(PagedKvCacheTest, APoolLargerThanTheBudgetIsRefused) {
  residency::HostDevice device;
  auto manager = MakeManager(device, 64 << 10);
  ASSERT_NE(manager, nullptr);
  Status s = PagedKvCache::Create(Options(4096, manager.get())).status();
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted) << s.ToString();
  EXPECT_EQ(manager->kv_pool(), nullptr);
}

TEST(PagedKvCacheTest, EngineOwnedPagesNeverHandOutTheNullPage) {
  auto cache = PagedKvCache::Create(Options(3, nullptr));
  ASSERT_TRUE(cache.ok());
  EXPECT_EQ((*cache)->provider().storage().size(0), 4);  // the null page on top
  KvSequence a;
  ASSERT_TRUE((*cache)->Reserve(a, 3 * kPage).ok());
  EXPECT_EQ(a.pages(), (std::vector<int64_t>{1, 2, 3}));
  (*cache)->Free(a);
  EXPECT_EQ((*cache)->free_pages(), 3);
}

TEST(PagedKvCacheTest, AttentionOverThePoolEqualsAttentionOverEngineOwnedPages) {
  residency::HostDevice device;
  auto manager = MakeManager(device, 1 << 20);
  ASSERT_NE(manager, nullptr);
  auto pooled = PagedKvCache::Create(Options(16, manager.get()));
  auto local = PagedKvCache::Create(Options(16, nullptr));
  ASSERT_TRUE(pooled.ok() && local.ok());
  at::manual_seed(11);
  const int64_t total = 37, heads = 6;
  const at::Tensor k = at::randn({total, kKvHeads, kHeadDim});
  const at::Tensor v = at::randn({total, kKvHeads, kHeadDim});
  const at::Tensor q = at::randn({total, heads, kHeadDim});
  KvSequence filler, sp, sl;
  ASSERT_TRUE((*pooled)->Reserve(filler, 7).ok());  // the pool's pages of sp are not its first ones
  ASSERT_TRUE((*pooled)->Reserve(sp, total).ok());
  ASSERT_TRUE((*local)->Reserve(sl, total).ok());
  for (int64_t l = 0; l < kLayers; ++l) {
    (*pooled)->Write(l, sp, 0, k * (l + 1), v);
    (*local)->Write(l, sl, 0, k * (l + 1), v);
  }
  for (int64_t l = 0; l < kLayers; ++l) {
    for (int64_t block : {4, 512}) {
      const AttentionShape shape{heads, kKvHeads, kHeadDim, block};
      EXPECT_TRUE(at::equal(PagedAttention(q.narrow(0, 30, 7), 30, **pooled, l, sp, shape),
                            PagedAttention(q.narrow(0, 30, 7), 30, **local, l, sl, shape)));
    }
  }
}

}  // namespace
}  // namespace mineru::engine
