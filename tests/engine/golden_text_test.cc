// Golden cases for the text decoder (Qwen2): prompt logits and greedy generation with and without the
// no-repeat-ngram ban, on the tied F32 and untied BF16 checkpoints of ../shared/golden.
#include <gtest/gtest.h>

#include "engine/generator.h"
#include "engine/mineru2_model.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using testing::IntList;
using testing::LoadGoldenJson;
using testing::LoadGoldenTensor;
using testing::MaxAbsDiff;

class GoldenTextTest : public ::testing::TestWithParam<const char*> {};

std::unique_ptr<Mineru2Model> LoadModel(const std::filesystem::path& dir, ModelOptions options = {}) {
  auto m = Mineru2Model::Load(dir, options);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(*m) : nullptr;
}

TEST_P(GoldenTextTest, PromptLogitsMatchReference) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const std::string dir = GetParam();
  const auto c = LoadGoldenJson(golden, dir + "/cases/logits-prompt20.json");
  auto model = LoadModel(golden / dir);
  ASSERT_NE(model, nullptr);
  const std::vector<int64_t> tokens = IntList(c["inputs"]["tokens"]);
  auto embeds = model->EmbedPrompt(tokens, nullptr);
  ASSERT_TRUE(embeds.ok()) << embeds.status().ToString();
  KvSequence seq;
  auto logits = model->decoder().Prefill(seq, *embeds, 512, /*all_logits=*/true);
  ASSERT_TRUE(logits.ok()) << logits.status().ToString();
  model->kv_cache().Free(seq);
  const at::Tensor expected = LoadGoldenTensor(golden, c["expected"]["logits"]);
  const double tol = c["tolerance"]["logits_max_abs"].get<double>();
  EXPECT_LE(MaxAbsDiff(*logits, expected), tol);
  const at::Tensor argmax = logits->argmax(-1).contiguous();
  EXPECT_EQ(IntList(c["expected"]["argmax"]),
            std::vector<int64_t>(argmax.data_ptr<int64_t>(), argmax.data_ptr<int64_t>() + argmax.numel()));
}

TEST_P(GoldenTextTest, GreedyGenerationMatchesReference) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const std::string dir = GetParam();
  auto model = LoadModel(golden / dir);
  ASSERT_NE(model, nullptr);
  for (const char* name : {"generate-32", "generate-32-ngram3-prompthist", "generate-32-ngram3-genhist"}) {
    SCOPED_TRACE(name);
    const auto c = LoadGoldenJson(golden, dir + "/cases/" + name + ".json");
    const auto& in = c["inputs"];
    const std::vector<int64_t> prompt = IntList(in["prompt_tokens"]);
    auto embeds = model->EmbedPrompt(prompt, nullptr);
    ASSERT_TRUE(embeds.ok());
    GenerationRequest req;
    req.prompt_embeds = *embeds;
    req.sampling.max_new_tokens = in["max_new_tokens"].get<int64_t>();
    req.sampling.eos_token_ids = model->config().generation.eos_token_ids;
    ASSERT_EQ(req.sampling.eos_token_ids, std::vector<int64_t>{in["eos_token_id"].get<int64_t>()});
    req.sampling.no_repeat_ngram_size = in.value("no_repeat_ngram_size", 0);
    if (in["ngram_history"].is_string() && in["ngram_history"].get<std::string>().rfind("PROMPT", 0) == 0) {
      req.sampling.ngram_history_prefix = prompt;
    }
    req.keep_step_logits = true;
    auto results = Generate(model->decoder(), std::span<const GenerationRequest>(&req, 1), {});
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    const auto& r = (*results)[0];
    EXPECT_EQ(r.generated, IntList(c["expected"]["generated"]));
    EXPECT_EQ(r.stopped_at_eos, c["expected"]["stopped_at_eos"].get<bool>());
    const at::Tensor expected = LoadGoldenTensor(golden, c["expected"]["step_logits"]);
    EXPECT_LE(MaxAbsDiff(r.step_logits, expected), c["tolerance"]["logits_max_abs"].get<double>());
  }
}

INSTANTIATE_TEST_SUITE_P(Models, GoldenTextTest, ::testing::Values("text-tied-f32", "text-untied-bf16"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& ch : s) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return s;
                         });

}  // namespace
}  // namespace mineru::engine
