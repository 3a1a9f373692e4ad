// bfloat16 compute on the CPU (dense_ops.h: widened GEMM for many rows, the bf16 few-rows kernel for
// decode) against the golden references, which were computed in float32 from the same bf16 weights.
// bf16 rounds every activation to 8 significant bits, so the logits drift from float32 by a bounded
// amount: 1.6% of the largest logit when this test was written (bound: 5%), with every greedy token
// equal to float32's (bound: the first half, since a near-tie may flip on another CPU's kernel path).
// tests/gpu reports the same drift for a GPU's bf16.
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

ModelOptions CpuBf16() {
  ModelOptions o;
  o.compute_dtype = at::kBFloat16;
  return o;
}

// Relative drift: max |a - b| over max |b|.
double RelativeDrift(const at::Tensor& got, const at::Tensor& want) {
  return MaxAbsDiff(got, want) / want.abs().max().item<double>();
}

size_t EqualPrefix(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

TEST(GoldenBf16CpuTest, TextPromptLogitsAndGenerationStayNearFloat32) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  auto model = Mineru2Model::Load(golden / "text-untied-bf16", CpuBf16());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const auto c = LoadGoldenJson(golden, "text-untied-bf16/cases/logits-prompt20.json");
  auto embeds = (*model)->EmbedPrompt(IntList(c["inputs"]["tokens"]), nullptr);
  ASSERT_TRUE(embeds.ok());
  KvSequence seq;
  auto logits = (*model)->decoder().Prefill(seq, *embeds, 512, /*all_logits=*/true);
  ASSERT_TRUE(logits.ok()) << logits.status().ToString();
  (*model)->kv_cache().Free(seq);
  const double drift = RelativeDrift(*logits, LoadGoldenTensor(golden, c["expected"]["logits"]));
  std::printf("[ drift    ] text-untied-bf16 prompt logits: %.4g of the largest logit\n", drift);
  EXPECT_LT(drift, 0.05);

  const auto g = LoadGoldenJson(golden, "text-untied-bf16/cases/generate-32.json");
  GenerationRequest req;
  req.prompt_embeds = *(*model)->EmbedPrompt(IntList(g["inputs"]["prompt_tokens"]), nullptr);
  req.sampling.max_new_tokens = g["inputs"]["max_new_tokens"].get<int64_t>();
  req.sampling.eos_token_ids = (*model)->config().generation.eos_token_ids;
  req.keep_step_logits = true;
  auto r = Generate((*model)->decoder(), std::span<const GenerationRequest>(&req, 1), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<int64_t> want = IntList(g["expected"]["generated"]);
  const size_t same = EqualPrefix((*r)[0].generated, want);
  std::printf("[ drift    ] text-untied-bf16 greedy: first %zu of %zu tokens equal float32's\n", same,
              want.size());
  EXPECT_GE(same, want.size() / 2);
}

TEST(GoldenBf16CpuTest, VlmSplicedLogitsStayNearFloat32) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const std::string base = "vlm-tied-bf16/cases/g2x2-640x480/";
  std::vector<int64_t> generated;
  const at::Tensor logits = GoldenVlmLogitsRows(golden, "vlm-tied-bf16", CpuBf16(), &generated);
  ASSERT_TRUE(logits.defined());
  const auto lc = LoadGoldenJson(golden, base + "logits.json");
  const double drift = RelativeDrift(logits, LoadGoldenTensor(golden, lc["expected"]["logits_rows"]));
  std::printf("[ drift    ] vlm-tied-bf16 spliced logits: %.4g of the largest logit\n", drift);
  EXPECT_LT(drift, 0.05);
  const auto gen = LoadGoldenJson(golden, base + "generate-ngram100.json");
  const std::vector<int64_t> want = IntList(gen["expected"]["generated"]);
  const size_t same = EqualPrefix(generated, want);
  std::printf("[ drift    ] vlm-tied-bf16 greedy: first %zu of %zu tokens equal float32's\n", same,
              want.size());
  EXPECT_GE(same, want.size() / 2);
}

}  // namespace
}  // namespace mineru::engine
