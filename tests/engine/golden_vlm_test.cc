// Golden cases for the MinerU 2.0 vision-language path: SigLIP features and projector output per
// tile, the merged image tokens per grid (with and without the bilinear shrink), the logits of the
// spliced prompt and greedy generation with the no-repeat-ngram ban over generated tokens.
#include <gtest/gtest.h>

#include <map>

#include "engine/generator.h"
#include "engine/mineru2_model.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using testing::GoldenPixels;
using testing::IntList;
using testing::LoadGoldenJson;
using testing::LoadGoldenTensor;
using testing::MaxAbsDiff;

struct VlmCase {
  const char* model;
  const char* grid_case;  // folder under cases/
};

void PrintTo(const VlmCase& c, std::ostream* os) { *os << c.model << "/" << c.grid_case; }

std::string CaseName(const ::testing::TestParamInfo<VlmCase>& info) {
  std::string s = std::string(info.param.model) + "_" + info.param.grid_case;
  for (char& ch : s) ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

// One loaded model per folder for the whole suite (loading is cheap, encoding is not).
Mineru2Model* SharedModel(const std::filesystem::path& dir) {
  static std::map<std::string, std::unique_ptr<Mineru2Model>> models;
  auto& m = models[dir.string()];
  if (!m) {
    auto loaded = Mineru2Model::Load(dir, {});
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    if (loaded.ok()) m = std::move(*loaded);
  }
  return m.get();
}

TEST(GoldenVisionTest, TilesMatchReference) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  for (const char* dir : {"vlm-untied-f32", "vlm-tied-bf16"}) {
    SCOPED_TRACE(dir);
    const auto c = LoadGoldenJson(golden, std::string(dir) + "/cases/vision-pool.json");
    Mineru2Model* model = SharedModel(golden / dir);
    ASSERT_NE(model, nullptr);
    const at::Tensor siglip = LoadGoldenTensor(golden, c["expected"]["siglip_features"]);
    const at::Tensor projector = LoadGoldenTensor(golden, c["expected"]["projector"]);
    const int64_t tiles = siglip.size(0);
    auto out = model->EncodeCrops(GoldenPixels(golden, tiles), /*keep_siglip=*/true);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_LE(MaxAbsDiff(out->siglip, siglip), c["tolerance"]["siglip_max_abs"].get<double>());
    EXPECT_LE(MaxAbsDiff(out->projected, projector), c["tolerance"]["projector_max_abs"].get<double>());
  }
}

class GoldenVlmTest : public ::testing::TestWithParam<VlmCase> {};

TEST_P(GoldenVlmTest, MergedLogitsAndGenerationMatchReference) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const std::string base = std::string(GetParam().model) + "/cases/" + GetParam().grid_case + "/";
  Mineru2Model* model = SharedModel(golden / GetParam().model);
  ASSERT_NE(model, nullptr);

  // Merged image tokens.
  const auto vision = LoadGoldenJson(golden, base + "vision.json");
  const auto size = IntList(vision["image_sizes"][0]);
  const int64_t tiles = vision["grid"]["tiles"].get<int64_t>();
  auto merged = model->EncodeImage(GoldenPixels(golden, tiles), size[0], size[1]);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  const at::Tensor expected_merged = LoadGoldenTensor(golden, vision["expected"]["merged"]);
  EXPECT_EQ(merged->size(0), vision["expected"]["merge"]["n_image_tokens"].get<int64_t>());
  EXPECT_LE(MaxAbsDiff(*merged, expected_merged), vision["tolerance"]["merged_max_abs"].get<double>());

  // Logits of the spliced prompt at the stored rows.
  const auto logits_case = LoadGoldenJson(golden, base + "logits.json");
  const std::vector<int64_t> tokens = IntList(logits_case["inputs"]["tokens"]);
  auto embeds = model->EmbedPrompt(tokens, &*merged);
  ASSERT_TRUE(embeds.ok()) << embeds.status().ToString();
  EXPECT_EQ(embeds->size(0), logits_case["expected"]["seq_len"].get<int64_t>());
  KvSequence seq;
  auto logits = model->decoder().Prefill(seq, *embeds, 2048, /*all_logits=*/true);
  model->kv_cache().Free(seq);
  ASSERT_TRUE(logits.ok()) << logits.status().ToString();
  const auto& rows_ref = logits_case["expected"]["logits_rows"];
  const at::Tensor rows = LoadGoldenTensor(golden, rows_ref["file"].get<std::string>(), "logits_row_index");
  const at::Tensor expected_rows = LoadGoldenTensor(golden, rows_ref);
  EXPECT_LE(MaxAbsDiff(logits->index_select(0, rows), expected_rows),
            logits_case["tolerance"]["logits_max_abs"].get<double>());

  // Greedy generation, MinerU's default n-gram size and the small one that changes the output.
  for (const char* gen : {"generate-ngram100.json", "generate-ngram4.json"}) {
    SCOPED_TRACE(gen);
    const auto g = LoadGoldenJson(golden, base + gen);
    ASSERT_EQ(IntList(g["inputs"]["tokens"]), tokens);
    GenerationRequest req;
    req.prompt_embeds = *embeds;
    req.sampling.max_new_tokens = g["inputs"]["max_new_tokens"].get<int64_t>();
    req.sampling.no_repeat_ngram_size = g["inputs"]["no_repeat_ngram_size"].get<int64_t>();
    req.sampling.eos_token_ids = model->config().generation.eos_token_ids;
    req.keep_step_logits = true;
    auto results = Generate(model->decoder(), std::span<const GenerationRequest>(&req, 1), {});
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    EXPECT_EQ((*results)[0].generated, IntList(g["expected"]["generated"]));
    EXPECT_EQ((*results)[0].stopped_at_eos, g["expected"]["stopped_at_eos"].get<bool>());
    EXPECT_LE(MaxAbsDiff((*results)[0].step_logits, LoadGoldenTensor(golden, g["expected"]["step_logits"])),
              g["tolerance"]["step_logits_max_abs"].get<double>());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GoldenVlmTest,
    ::testing::Values(VlmCase{"vlm-untied-f32", "g1x1-300x200"}, VlmCase{"vlm-untied-f32", "g1x4-700x3000"},
                      VlmCase{"vlm-untied-f32", "g2x2-640x480"}, VlmCase{"vlm-untied-f32", "g3x4-1654x2339"},
                      VlmCase{"vlm-untied-f32", "g4x1-3000x700"}, VlmCase{"vlm-untied-f32", "g4x4-1700x2200"},
                      VlmCase{"vlm-tied-bf16", "g2x2-640x480"}),
    CaseName);

}  // namespace
}  // namespace mineru::engine
