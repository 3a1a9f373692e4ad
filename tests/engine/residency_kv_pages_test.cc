// The MinerU 2.0 model with a residency manager keeps every KV token in the manager's KvPagePool:
// during a golden VLM generation the pool's stats count the sequence's pages (never page 0), they go
// back when the sequence is freed, the golden tokens and logits are reproduced, and at a small budget
// (the largest weight unit + the KV pool + the decoder's workspace bound) the manager's kGpu peak —
// weights, KV pages and workspace together — stays within the budget, with the workspace really charged.
#include "engine/residency_kv_pages.h"

#include <gtest/gtest.h>

#include "engine/generator.h"
#include "engine/mineru2_model.h"
#include "engine/model_memory.h"
#include "residency/host_device.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using testing::GoldenPixels;
using testing::IntList;
using testing::LoadGoldenJson;
using testing::LoadGoldenTensor;
using testing::MaxAbsDiff;

constexpr int64_t kSplicedTokens = 3714;  // g2x2-640x480: 15 prompt tokens + 3699 image tokens

TEST(ResidencyKvPagesTest, GoldenGenerationKeepsItsKvInThePoolWithinTheBudget) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const auto dir = golden / "vlm-untied-f32";
  const auto g = LoadGoldenJson(golden, "vlm-untied-f32/cases/g2x2-640x480/generate-ngram100.json");
  const int64_t generate = g["inputs"]["max_new_tokens"].get<int64_t>();

  ModelOptions options;
  options.kv_page_tokens = 16;
  options.kv_capacity_tokens = kSplicedTokens + generate + 1;
  const int64_t chunk = 512;
  // The smallest budget the manager can run: one unit at a time, plus the KV pool and the workspace.
  auto config = ModelConfig::Load(dir);
  auto ckpt = Checkpoint::Open(dir);
  ASSERT_TRUE(config.ok() && ckpt.ok());
  InferMemoryRequest request;
  request.units = *ListModelUnits(*ckpt, *config);
  request.weight_budget_fraction = 0.0;
  request.kv_page_tokens = options.kv_page_tokens;
  request.kv_capacity_tokens = options.kv_capacity_tokens;
  request.prompt_tokens = kSplicedTokens;
  request.generate = generate;
  request.prefill_chunk = chunk;
  request.key_block_tokens = options.attention_key_block_tokens;
  request.vision_crops = 5;  // the page's crops go through the vision tower under the same budget
  const InferMemory memory = PlanInferMemory(*config, request);
  ASSERT_LT(memory.weight_budget_bytes, memory.weights_total_bytes / 2);

  residency::HostDevice device;
  residency::ResidencyOptions ro;
  ro.gpu_budget_bytes = memory.gpu_budget_bytes;
  ro.pinned_budget_bytes = 0;
  ro.prefetch_depth = 1;
  auto manager = residency::ResidencyManager::Create(&device, ro);
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  options.residency = manager->get();
  auto model = Mineru2Model::Load(dir, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  residency::KvPagePool* pool = (*manager)->kv_pool();
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(&dynamic_cast<ResidencyKvPages&>((*model)->kv_cache().provider()).pool(), pool);
  EXPECT_EQ(pool->GetStats().pages_used, 0u);

  auto merged = (*model)->EncodeImage(GoldenPixels(golden, 5), 640, 480);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  auto embeds = (*model)->EmbedPrompt(IntList(g["inputs"]["tokens"]), &*merged);
  ASSERT_TRUE(embeds.ok()) << embeds.status().ToString();
  ASSERT_EQ(embeds->size(0), kSplicedTokens);

  // A prefill holds exactly its pages of the pool, none of them the null page.
  {
    KvSequence seq;
    auto logits = (*model)->decoder().Prefill(seq, *embeds, chunk, false);
    ASSERT_TRUE(logits.ok()) << logits.status().ToString();
    const residency::KvStats kv = pool->GetStats();
    EXPECT_EQ(kv.pages_used, static_cast<uint64_t>(PagedKvCache::PagesFor(kSplicedTokens, 16)));
    EXPECT_EQ(kv.tokens, static_cast<uint64_t>(kSplicedTokens));
    EXPECT_EQ(kv.sequences, 1u);
    EXPECT_LT(kv.waste_fraction, 0.04);
    for (int64_t p : seq.pages()) ASSERT_NE(p, residency::kNullPage);
    EXPECT_TRUE(pool->CheckConsistency().ok());
    (*model)->kv_cache().Free(seq);
    EXPECT_EQ(pool->GetStats().pages_used, 0u);
    EXPECT_EQ(pool->GetStats().sequences, 0u);
  }

  // The golden generation, through the pool.
  GenerationRequest req;
  req.prompt_embeds = *embeds;
  req.sampling.max_new_tokens = generate;
  req.sampling.no_repeat_ngram_size = g["inputs"]["no_repeat_ngram_size"].get<int64_t>();
  req.sampling.eos_token_ids = (*model)->config().generation.eos_token_ids;
  req.keep_step_logits = true;
  auto results = Generate((*model)->decoder(), std::span<const GenerationRequest>(&req, 1), {chunk});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ((*results)[0].generated, IntList(g["expected"]["generated"]));
  EXPECT_LE(MaxAbsDiff((*results)[0].step_logits, LoadGoldenTensor(golden, g["expected"]["step_logits"])),
            g["tolerance"]["step_logits_max_abs"].get<double>());
  EXPECT_EQ(pool->GetStats().pages_used, 0u);  // freed when the generation ended
  const int64_t generated = static_cast<int64_t>((*results)[0].generated.size());
  EXPECT_EQ((*model)->kv_cache().peak_pages_used(),
            PagedKvCache::PagesFor(kSplicedTokens + generated - 1, 16));

  // Weights + KV pages + workspace within the budget; the workspace was charged on top of the pool.
  const residency::Stats stats = (*manager)->GetStats();
  const auto& gpu = stats.tiers[static_cast<int>(residency::Tier::kGpu)];
  const uint64_t workspace = (*model)->decoder().peak_workspace_bytes();
  EXPECT_GT(workspace, 0u);
  EXPECT_LE(workspace, memory.workspace_bytes);
  EXPECT_GE(gpu.kv_bytes, pool->num_pages() * pool->page_size_bytes());
  EXPECT_LE(gpu.peak_bytes, ro.gpu_budget_bytes);
  EXPECT_GE(gpu.peak_bytes, gpu.kv_bytes + workspace);
  EXPECT_GT(stats.evictions, 0u);      // the weights were streamed through the budget
  EXPECT_EQ(gpu.workspace_bytes, 0u);  // every reservation ended with its forward
}

}  // namespace
}  // namespace mineru::engine
