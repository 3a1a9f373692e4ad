#include "tests/engine/golden_support.h"

#include <gtest/gtest.h>

#include <fstream>

#include "engine/generator.h"
#include "engine/safetensors_file.h"

namespace mineru::engine::testing {

nlohmann::json LoadGoldenJson(const std::filesystem::path& golden, const std::string& relative) {
  std::ifstream in(golden / relative);
  if (!in) {
    ADD_FAILURE() << "cannot open " << (golden / relative);
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(in);
}

at::Tensor LoadGoldenTensor(const std::filesystem::path& golden, const std::string& file,
                            const std::string& name) {
  auto f = SafetensorsFile::Open((golden / file).string());
  if (!f.ok()) {
    ADD_FAILURE() << f.status().ToString();
    return at::Tensor();
  }
  const TensorEntry* e = f->Find(name);
  if (!e) {
    ADD_FAILURE() << "no tensor " << name << " in " << file;
    return at::Tensor();
  }
  at::Tensor view = *f->View(*e);
  return view.is_floating_point() ? view.to(at::kFloat, false, /*copy=*/true)
                                  : view.to(at::kLong, false, true);
}

at::Tensor LoadGoldenTensor(const std::filesystem::path& golden, const nlohmann::json& ref) {
  return LoadGoldenTensor(golden, ref.at("file").get<std::string>(), ref.at("tensor").get<std::string>());
}

std::vector<int64_t> IntList(const nlohmann::json& j) { return j.get<std::vector<int64_t>>(); }

double MaxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  if (a.sizes() != b.sizes()) return 1e30;
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

at::Tensor GoldenPixels(const std::filesystem::path& golden, int64_t count) {
  at::Tensor pool = LoadGoldenTensor(golden, "pixels/pool.safetensors", "pixel_values");
  return pool.narrow(0, 0, count).contiguous();
}

at::Tensor GoldenVlmLogitsRows(const std::filesystem::path& golden, const std::string& dir,
                               const ModelOptions& options, std::vector<int64_t>* generated) {
  const std::string base = dir + "/cases/g2x2-640x480/";
  auto model = Mineru2Model::Load(golden / dir, options);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return at::Tensor();
  auto merged = (*model)->EncodeImage(GoldenPixels(golden, 5), 640, 480);
  EXPECT_TRUE(merged.ok()) << merged.status().ToString();
  if (!merged.ok()) return at::Tensor();
  const auto lc = LoadGoldenJson(golden, base + "logits.json");
  GenerationRequest req;
  req.prompt_embeds = *(*model)->EmbedPrompt(IntList(lc["inputs"]["tokens"]), &*merged);
  req.sampling.max_new_tokens = 24;
  req.sampling.no_repeat_ngram_size = 100;
  req.keep_prompt_logits = true;
  auto r = Generate((*model)->decoder(), std::span<const GenerationRequest>(&req, 1), {});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return at::Tensor();
  if (generated) *generated = (*r)[0].generated;
  const at::Tensor rows =
      LoadGoldenTensor(golden, lc["expected"]["logits_rows"]["file"].get<std::string>(), "logits_row_index");
  return (*r)[0].prompt_logits.index_select(0, rows);
}

}  // namespace mineru::engine::testing
