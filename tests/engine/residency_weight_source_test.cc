// The model with its weights leased from the residency manager (HostDevice, the CPU build's device),
// its KV pages in the manager's pool and its decoder workspace reserved there: at kGpu budgets of the
// KV pool + the workspace bound + 100% or 50% of the weights, or the least weight share that holds the
// largest unit (one streaming slot), the logits and tokens are bit-identical to the model run without
// residency, the manager streams units below the full budget, and its kGpu peak stays within the
// budget. (The golden models are tiny, so their largest unit is a third of all weights; 20% cannot hold
// it: the floor is the largest unit.)
#include "engine/residency_weight_source.h"

#include <gtest/gtest.h>

#include "engine/generator.h"
#include "engine/mineru2_model.h"
#include "engine/model_memory.h"
#include "residency/host_device.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

struct Output {
  at::Tensor prompt_logits;
  at::Tensor step_logits;
  std::vector<int64_t> generated;
  uint64_t peak_workspace_bytes = 0;
};

constexpr int64_t kSplicedTokens = 3714;
constexpr int64_t kGenerate = 8;

Output RunModel(const std::filesystem::path& golden, const char* dir, const ModelOptions& options) {
  Output out;
  auto model = Mineru2Model::Load(golden / dir, options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return out;
  std::vector<int64_t> tokens = {40, 41, 42, 43, 44, 45, 46, 47, 48, 299, 60, 61, 62, 63, 64, 65};
  auto merged = (*model)->EncodeImage(testing::GoldenPixels(golden, 5), 640, 480);
  EXPECT_TRUE(merged.ok()) << merged.status().ToString();
  if (!merged.ok()) return out;
  GenerationRequest req;
  req.prompt_embeds = *(*model)->EmbedPrompt(tokens, &*merged);
  req.sampling.max_new_tokens = kGenerate;
  req.keep_prompt_logits = true;
  req.keep_step_logits = true;
  auto r = Generate((*model)->decoder(), std::span<const GenerationRequest>(&req, 1), {});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return out;
  out.prompt_logits = (*r)[0].prompt_logits;
  out.step_logits = (*r)[0].step_logits;
  out.generated = (*r)[0].generated;
  out.peak_workspace_bytes = (*model)->decoder().peak_workspace_bytes();
  return out;
}

TEST(ResidencyWeightSourceTest, BudgetsThroughResidencyAreBitIdentical) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  for (const char* dir : {"vlm-untied-f32", "vlm-tied-bf16"}) {
    SCOPED_TRACE(dir);
    const Output reference = RunModel(golden, dir, {});
    ASSERT_TRUE(reference.prompt_logits.defined());
    auto config = ModelConfig::Load(golden / dir);
    auto ckpt = Checkpoint::Open(golden / dir);
    for (double fraction : {1.0, 0.5, 0.0}) {
      SCOPED_TRACE(fraction);
      ModelOptions options;
      options.kv_capacity_tokens = kSplicedTokens + kGenerate;
      InferMemoryRequest request;
      request.units = *ListModelUnits(*ckpt, *config);
      request.weight_budget_fraction = fraction;  // 0: one unit at a time (the floor)
      request.kv_page_tokens = options.kv_page_tokens;
      request.kv_capacity_tokens = options.kv_capacity_tokens;
      request.prompt_tokens = kSplicedTokens;
      request.generate = kGenerate;
      request.all_prompt_logits = true;
      request.key_block_tokens = options.attention_key_block_tokens;
      request.vision_crops = 5;  // the page's crops go through the vision tower under the same budget
      const InferMemory memory = PlanInferMemory(*config, request);
      residency::HostDevice device;
      residency::ResidencyOptions ro;
      ro.gpu_budget_bytes = memory.gpu_budget_bytes;
      if (fraction == 0.0) ro.prefetch_depth = 1;
      ro.pinned_budget_bytes = 0;
      auto manager = residency::ResidencyManager::Create(&device, ro);
      ASSERT_TRUE(manager.ok()) << manager.status().ToString();
      options.residency = manager->get();
      const Output out = RunModel(golden, dir, options);
      ASSERT_TRUE(out.prompt_logits.defined());
      EXPECT_TRUE(at::equal(out.prompt_logits, reference.prompt_logits));
      EXPECT_TRUE(at::equal(out.step_logits, reference.step_logits));
      EXPECT_EQ(out.generated, reference.generated);
      const residency::Stats stats = (*manager)->GetStats();
      const auto& gpu = stats.tiers[static_cast<int>(residency::Tier::kGpu)];
      EXPECT_LE(gpu.peak_bytes, ro.gpu_budget_bytes);
      EXPECT_GE(gpu.peak_bytes, gpu.kv_bytes + out.peak_workspace_bytes);  // the workspace was charged
      EXPECT_LE(out.peak_workspace_bytes, memory.workspace_bytes);
      EXPECT_GT(stats.acquires, 0u);
      if (fraction < 1.0) {
        EXPECT_GT(stats.evictions, 0u);  // units were streamed through the budget
      }
    }
  }
}

}  // namespace
}  // namespace mineru::engine
