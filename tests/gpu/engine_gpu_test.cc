// The engine on CUDA: the golden cases of ../shared/golden within their tolerances (float32 compute
// on the GPU), and the drift of bf16 compute against float32 reported (not asserted beyond sanity).
// Skips where libtorch has no CUDA device.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "engine/generator.h"
#include "engine/mineru2_model.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using testing::GoldenVlmLogitsRows;
using testing::IntList;
using testing::LoadGoldenJson;
using testing::LoadGoldenTensor;
using testing::MaxAbsDiff;

#define SKIP_WITHOUT_CUDA()                                                      \
  do {                                                                           \
    if (!at::hasCUDA()) GTEST_SKIP() << "no CUDA device in this libtorch build"; \
  } while (0)

ModelOptions Cuda(at::ScalarType dtype) {
  ModelOptions o;
  o.device = at::Device(at::kCUDA, 0);
  o.compute_dtype = dtype;
  return o;
}

TEST(EngineGpuTest, TextGoldenCasesOnCuda) {
  SKIP_WITHOUT_CUDA();
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  for (const char* dir : {"text-tied-f32", "text-untied-bf16"}) {
    SCOPED_TRACE(dir);
    auto model = Mineru2Model::Load(golden / dir, Cuda(at::kFloat));
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    const auto c = LoadGoldenJson(golden, std::string(dir) + "/cases/generate-32-ngram3-genhist.json");
    GenerationRequest req;
    req.prompt_embeds = *(*model)->EmbedPrompt(IntList(c["inputs"]["prompt_tokens"]), nullptr);
    req.sampling.max_new_tokens = 32;
    req.sampling.no_repeat_ngram_size = 3;
    req.keep_step_logits = true;
    auto r = Generate((*model)->decoder(), std::span<const GenerationRequest>(&req, 1), {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].generated, IntList(c["expected"]["generated"]));
    EXPECT_LE(MaxAbsDiff((*r)[0].step_logits, LoadGoldenTensor(golden, c["expected"]["step_logits"])), 1e-4);
  }
}

TEST(EngineGpuTest, VlmGoldenCaseOnCudaAndBf16Drift) {
  SKIP_WITHOUT_CUDA();
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  for (const char* dir : {"vlm-untied-f32", "vlm-tied-bf16"}) {
    SCOPED_TRACE(dir);
    const std::string base = std::string(dir) + "/cases/g2x2-640x480/";
    const auto lc = LoadGoldenJson(golden, base + "logits.json");
    const auto gen = LoadGoldenJson(golden, base + "generate-ngram100.json");
    std::vector<int64_t> generated;
    const at::Tensor f32 = GoldenVlmLogitsRows(golden, dir, Cuda(at::kFloat), &generated);
    ASSERT_TRUE(f32.defined());
    EXPECT_LE(MaxAbsDiff(f32, LoadGoldenTensor(golden, lc["expected"]["logits_rows"])), 1e-4);
    EXPECT_EQ(generated, IntList(gen["expected"]["generated"]));
    std::vector<int64_t> generated_bf16;
    const at::Tensor bf16 = GoldenVlmLogitsRows(golden, dir, Cuda(at::kBFloat16), &generated_bf16);
    ASSERT_TRUE(bf16.defined());
    const double drift = MaxAbsDiff(bf16, f32);
    size_t same = 0;
    for (size_t i = 0; i < std::min(generated.size(), generated_bf16.size()); ++i)
      same += generated[i] == generated_bf16[i];
    ::testing::Test::RecordProperty(std::string(dir) + "_bf16_logits_max_abs_drift", std::to_string(drift));
    std::printf("[ drift    ] %s: bf16 vs f32 logits max |diff| %.4g, %zu/%zu greedy tokens equal\n", dir,
                drift, same, generated.size());
    EXPECT_TRUE(std::isfinite(drift));
  }
}

}  // namespace
}  // namespace mineru::engine
