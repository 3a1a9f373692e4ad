// The invariants of the model on CPU in float32:
//  * bit-identical logits and tokens whatever part of the weights stays resident (100%, 50%, 20%);
//  * paged KV == contiguous KV, bit for bit;
//  * chunked prefill (chunks of 1, 7, 64) within 1e-5 of one chunk, same greedy tokens;
//  * a sequence decoded alone or inside a batch of 5 others of different lengths: within 1e-5, same tokens.
#include <gtest/gtest.h>

#include "engine/generator.h"
#include "engine/local_weight_store.h"
#include "engine/mineru2_model.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using testing::GoldenPixels;
using testing::MaxAbsDiff;

const std::vector<int64_t> kVlmPrompt = {40, 41, 42, 43, 44, 45, 46, 47, 48, 299, 60, 61, 62, 63, 64, 65};

struct RunOutput {
  at::Tensor merged;
  at::Tensor prompt_logits;
  at::Tensor step_logits;
  std::vector<int64_t> generated;
};

RunOutput RunVlm(const std::filesystem::path& golden, const ModelOptions& options, int64_t prefill_chunk,
                 WeightStoreStats* stats = nullptr) {
  RunOutput out;
  auto model = Mineru2Model::Load(golden / "vlm-untied-f32", options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return out;
  auto merged = (*model)->EncodeImage(GoldenPixels(golden, 5), 640, 480);
  EXPECT_TRUE(merged.ok()) << merged.status().ToString();
  if (!merged.ok()) return out;
  out.merged = *merged;
  GenerationRequest req;
  req.prompt_embeds = *(*model)->EmbedPrompt(kVlmPrompt, &*merged);
  req.sampling.max_new_tokens = 12;
  req.sampling.no_repeat_ngram_size = 4;
  req.keep_prompt_logits = true;
  req.keep_step_logits = true;
  auto r = Generate((*model)->decoder(), std::span<const GenerationRequest>(&req, 1), {prefill_chunk});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return out;
  out.prompt_logits = (*r)[0].prompt_logits;
  out.step_logits = (*r)[0].step_logits;
  out.generated = (*r)[0].generated;
  if (stats) *stats = dynamic_cast<LocalWeightStore&>((*model)->weights()).stats();
  return out;
}

uint64_t WeightBytes(const std::filesystem::path& dir) {
  auto config = ModelConfig::Load(dir);
  auto ckpt = Checkpoint::Open(dir);
  auto units = ListModelUnits(*ckpt, *config);
  uint64_t n = 0;
  for (const auto& u : *units) n += LocalWeightStore::ComputeBytes(u, at::kFloat);
  return n;
}

TEST(ModelInvariantsTest, BudgetsGiveBitIdenticalOutput) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const uint64_t total = WeightBytes(golden / "vlm-untied-f32");
  WeightStoreStats full_stats;
  ModelOptions options;
  options.weight_budget_bytes = total;
  const RunOutput full = RunVlm(golden, options, 512, &full_stats);
  EXPECT_EQ(full_stats.streamed_loads, 0);
  for (double fraction : {0.5, 0.2}) {
    SCOPED_TRACE(fraction);
    options.weight_budget_bytes = static_cast<uint64_t>(total * fraction);
    WeightStoreStats stats;
    const RunOutput part = RunVlm(golden, options, 512, &stats);
    EXPECT_LE(stats.resident_bytes, options.weight_budget_bytes);
    EXPECT_LT(stats.resident_units, full_stats.resident_units);
    EXPECT_GT(stats.streamed_loads, 0);  // the placement really changed
    EXPECT_TRUE(at::equal(part.merged, full.merged));
    EXPECT_TRUE(at::equal(part.prompt_logits, full.prompt_logits));
    EXPECT_TRUE(at::equal(part.step_logits, full.step_logits));
    EXPECT_EQ(part.generated, full.generated);
  }
}

TEST(ModelInvariantsTest, PagedKvEqualsContiguousKv) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  ModelOptions paged;
  paged.kv_page_tokens = 16;
  ModelOptions contiguous;
  contiguous.kv_page_tokens = 8192;  // one page holds the whole sequence
  ModelOptions odd_pages;
  odd_pages.kv_page_tokens = 5;
  const RunOutput a = RunVlm(golden, paged, 512);
  const RunOutput b = RunVlm(golden, contiguous, 512);
  const RunOutput c = RunVlm(golden, odd_pages, 512);
  EXPECT_TRUE(at::equal(a.prompt_logits, b.prompt_logits));
  EXPECT_TRUE(at::equal(a.step_logits, b.step_logits));
  EXPECT_TRUE(at::equal(c.prompt_logits, b.prompt_logits));
  EXPECT_TRUE(at::equal(c.step_logits, b.step_logits));
  EXPECT_EQ(a.generated, b.generated);
}

TEST(ModelInvariantsTest, ChunkedPrefillAgreesWithOneChunk) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const RunOutput whole = RunVlm(golden, {}, 1 << 20);
  ASSERT_EQ(whole.prompt_logits.size(0), 3714);
  for (int64_t chunk : {1, 7, 64}) {
    SCOPED_TRACE(chunk);
    const RunOutput part = RunVlm(golden, {}, chunk);
    EXPECT_LE(MaxAbsDiff(part.prompt_logits, whole.prompt_logits), 1e-5);
    EXPECT_LE(MaxAbsDiff(part.step_logits, whole.step_logits), 1e-5);
    EXPECT_EQ(part.generated, whole.generated);
  }
}

TEST(ModelInvariantsTest, BatchedDecodeAgreesWithDecodingAlone) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  for (const char* dir : {"text-tied-f32", "text-untied-bf16"}) {
    SCOPED_TRACE(dir);
    auto model = Mineru2Model::Load(golden / dir, {});
    ASSERT_TRUE(model.ok());
    std::vector<GenerationRequest> requests;
    for (int64_t len : {20, 3, 11, 1, 37, 8}) {
      std::vector<int64_t> prompt;
      for (int64_t i = 0; i < len; ++i) prompt.push_back((i * 37 + len * 11) % 290);
      GenerationRequest r;
      r.prompt_embeds = *(*model)->EmbedPrompt(prompt, nullptr);
      r.sampling.max_new_tokens = 10 + len % 7 * 3;  // sequences finish at different steps
      r.sampling.no_repeat_ngram_size = 3;
      r.keep_step_logits = true;
      requests.push_back(r);
    }
    auto batch = Generate((*model)->decoder(), requests, {});
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_GT((*batch)[0].decode_steps, 0);
    for (size_t i = 0; i < requests.size(); ++i) {
      SCOPED_TRACE(i);
      auto alone = Generate((*model)->decoder(), std::span<const GenerationRequest>(&requests[i], 1), {});
      ASSERT_TRUE(alone.ok());
      EXPECT_EQ((*alone)[0].generated, (*batch)[i].generated);
      EXPECT_LE(MaxAbsDiff((*alone)[0].step_logits, (*batch)[i].step_logits), 1e-5);
    }
    EXPECT_EQ((*model)->kv_cache().free_pages(), (*model)->kv_cache().num_pages());  // all returned
  }
}

}  // namespace
}  // namespace mineru::engine
