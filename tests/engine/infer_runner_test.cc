// mineru-infer end to end (in process): every golden model folder runs with --tokens (and --pixels for
// the VLM folders); the written logits match the reference; bad command lines are clear errors.
#include "engine/infer_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "engine/infer_options.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using testing::LoadGoldenJson;
using testing::LoadGoldenTensor;
using testing::MaxAbsDiff;

std::string Join(const std::vector<int64_t>& ids) {
  std::string s;
  for (int64_t id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s;
}

TEST(InferRunnerTest, TextFoldersReproduceTheGoldenGeneration) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  for (const char* dir : {"text-tied-f32", "text-untied-bf16"}) {
    SCOPED_TRACE(dir);
    const auto c = LoadGoldenJson(golden, std::string(dir) + "/cases/generate-32-ngram3-genhist.json");
    const std::string out =
        (std::filesystem::temp_directory_path() / ("infer_" + std::to_string(getpid()) + ".safetensors"))
            .string();
    auto o = ParseInferOptions({"--model", (golden / dir).string(), "--tokens",
                                Join(c["inputs"]["prompt_tokens"].get<std::vector<int64_t>>()), "--generate",
                                "32", "--no-repeat-ngram", "3", "--logits-out", out, "--vram-budget", "50%"});
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    auto j = RunInfer(*o);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    EXPECT_EQ((*j)["generated"].get<std::vector<int64_t>>(),
              c["expected"]["generated"].get<std::vector<int64_t>>());
    EXPECT_EQ((*j)["prompt_tokens"].get<int64_t>(), 20);
    // Through the residency manager: units were streamed (after the run, with no workspace held, the
    // tiny golden weights may all be back on kGpu).
    EXPECT_EQ((*j)["kv"]["pool"].get<std::string>(), "residency");
    EXPECT_GT((*j)["weights"]["evictions"].get<int64_t>(), 0);
    EXPECT_LE((*j)["residency"]["gpu_peak_bytes"].get<uint64_t>(),
              (*j)["residency"]["gpu_budget_bytes"].get<uint64_t>());
    const at::Tensor steps = LoadGoldenTensor(std::filesystem::path("/"), out, "step_logits");
    EXPECT_LE(MaxAbsDiff(steps, LoadGoldenTensor(golden, c["expected"]["step_logits"])), 1e-4);
    const at::Tensor prompt = LoadGoldenTensor(std::filesystem::path("/"), out, "prompt_logits");
    EXPECT_EQ(prompt.size(0), 20);
    std::filesystem::remove(out);
  }
}

TEST(InferRunnerTest, VlmFoldersRunWithPixels) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  for (const char* dir : {"vlm-untied-f32", "vlm-tied-bf16"}) {
    SCOPED_TRACE(dir);
    const std::string base = std::string(dir) + "/cases/g2x2-640x480/";
    const auto logits_case = LoadGoldenJson(golden, base + "logits.json");
    const auto gen = LoadGoldenJson(golden, base + "generate-ngram100.json");
    const std::string out =
        (std::filesystem::temp_directory_path() / ("infer_vlm_" + std::to_string(getpid()) + ".safetensors"))
            .string();
    auto o = ParseInferOptions({"--model", (golden / dir).string(), "--tokens",
                                Join(logits_case["inputs"]["tokens"].get<std::vector<int64_t>>()), "--pixels",
                                (golden / "pixels/pool.safetensors").string(), "--image-size", "640,480",
                                "--generate", "24", "--prefill-chunk", "300", "--kv-page-tokens", "32",
                                "--logits-out", out});
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    auto j = RunInfer(*o);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    EXPECT_EQ((*j)["image_tokens"].get<int64_t>(), 3699);
    EXPECT_EQ((*j)["crops"].get<int64_t>(), 5);
    EXPECT_EQ((*j)["generated"].get<std::vector<int64_t>>(),
              gen["expected"]["generated"].get<std::vector<int64_t>>());
    const at::Tensor prompt = LoadGoldenTensor(std::filesystem::path("/"), out, "prompt_logits");
    const auto& rows_ref = logits_case["expected"]["logits_rows"];
    const at::Tensor rows = LoadGoldenTensor(golden, rows_ref["file"].get<std::string>(), "logits_row_index");
    EXPECT_LE(MaxAbsDiff(prompt.index_select(0, rows), LoadGoldenTensor(golden, rows_ref)), 1e-4);
    std::filesystem::remove(out);
  }
}

// --vram-budget runs through the residency manager: weights, the KV pool and the decoder's workspace
// under one kGpu budget that the peak never passes, the same tokens at 100%, 50% and 20% (raised to
// the largest unit), KV pages used during the run and none after.
TEST(InferRunnerTest, VramBudgetRunsThroughTheResidencyManager) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const auto gen = LoadGoldenJson(golden, "vlm-untied-f32/cases/g2x2-640x480/generate-ngram100.json");
  const auto expected = gen["expected"]["generated"].get<std::vector<int64_t>>();
  uint64_t previous_budget = UINT64_MAX;
  for (const char* budget : {"100%", "50%", "20%"}) {
    SCOPED_TRACE(budget);
    auto o = ParseInferOptions({"--model", (golden / "vlm-untied-f32").string(), "--tokens",
                                Join(gen["inputs"]["tokens"].get<std::vector<int64_t>>()), "--pixels",
                                (golden / "pixels/pool.safetensors").string(), "--image-size", "640,480",
                                "--generate", "24", "--vram-budget", budget});
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    auto j = RunInfer(*o);
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    EXPECT_EQ((*j)["generated"].get<std::vector<int64_t>>(), expected);
    const auto& kv = (*j)["kv"];
    EXPECT_EQ(kv["pool"].get<std::string>(), "residency");
    const int64_t tokens = 3714 + static_cast<int64_t>(expected.size()) - 1;
    EXPECT_EQ(kv["pages_used_peak"].get<int64_t>(), (tokens + 15) / 16);
    EXPECT_EQ(kv["pages_used_after"].get<int64_t>(), 0);
    const auto& r = (*j)["residency"];
    const uint64_t gpu_budget = r["gpu_budget_bytes"].get<uint64_t>();
    EXPECT_LE(r["gpu_peak_bytes"].get<uint64_t>(), gpu_budget);
    EXPECT_GT(r["workspace_reserved_peak_bytes"].get<uint64_t>(), 0u);
    EXPECT_LE(r["workspace_reserved_peak_bytes"].get<uint64_t>(), r["workspace_bound_bytes"].get<uint64_t>());
    EXPECT_GE(r["kv_pool_bytes"].get<uint64_t>(),
              kv["pages"].get<uint64_t>() * 16 * kv["bytes_per_token"].get<uint64_t>());
    EXPECT_LE(gpu_budget, previous_budget);
    previous_budget = gpu_budget;
    if (std::string(budget) != "100%") {
      EXPECT_GT((*j)["weights"]["evictions"].get<int64_t>(), 0);  // streamed through the budget
    } else {
      EXPECT_EQ((*j)["weights"]["evictions"].get<int64_t>(), 0);  // everything fits: the plain path
    }
  }
}

TEST(InferRunnerTest, PagePngGivesTheSameResultAsItsGoldenPixels) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const std::string model = (golden / "vlm-untied-f32").string();
  const std::string tokens = "40,41,42,299,60,61";
  // 300x200 page: one tile; the golden pixel_values were computed with Pillow from the same PNG.
  auto from_png = RunInfer(
      *ParseInferOptions({"--model", model, "--tokens", tokens, "--image",
                          (golden / "preprocess/page-300x200/input.png").string(), "--generate", "6"}));
  ASSERT_TRUE(from_png.ok()) << from_png.status().ToString();
  auto from_pixels =
      RunInfer(*ParseInferOptions({"--model", model, "--tokens", tokens, "--pixels",
                                   (golden / "preprocess/page-300x200/pixel_values.safetensors").string(),
                                   "--image-size", "300,200", "--generate", "6"}));
  ASSERT_TRUE(from_pixels.ok()) << from_pixels.status().ToString();
  EXPECT_EQ((*from_png)["image_tokens"].get<int64_t>(), 1485);
  EXPECT_EQ((*from_png)["generated"], (*from_pixels)["generated"]);
  // A larger page chooses its grid from the PNG's own size: 800x600 -> 3x2 tiles.
  auto wide = RunInfer(*ParseInferOptions({"--model", model, "--tokens", tokens, "--image",
                                           (golden / "preprocess/page-800x600/input.png").string()}));
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_EQ((*wide)["crops"].get<int64_t>(), 7);
  // A prompt needs the model folder's tokenizer.json (the golden folders have none).
  Status s = RunInfer(*ParseInferOptions({"--model", model, "--prompt", "hello"})).status();
  EXPECT_NE(s.message().find("tokenizer.json"), std::string::npos) << s.ToString();
}

TEST(InferRunnerTest, BadCommandLinesAreClearErrors) {
  const auto err = [](std::vector<std::string> args, const std::string& needle) {
    auto o = ParseInferOptions(args);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find(needle), std::string::npos) << o.status().message();
  };
  err({"--tokens", "1,2"}, "--model");
  err({"--model", "m"}, "exactly one of --prompt and --tokens");
  err({"--model", "m", "--tokens", "1,x"}, "not an integer");
  err({"--model", "m", "--tokens", "1", "--pixels", "p"}, "--image-size");
  err({"--model", "m", "--tokens", "1", "--dtype", "fp8"}, "--dtype");
  err({"--model", "m", "--tokens", "1", "--kv-page-tokens", "0"}, "--kv-page-tokens");
  err({"--model", "m", "--tokens", "1", "--vram-budget", "150%"}, "--vram-budget");
  err({"--model", "m", "--tokens", "1", "--bogus", "1"}, "unknown flag --bogus");
  err({"--model", "m", "--tokens"}, "needs a value");
  auto help = ParseInferOptions({"--help"});
  ASSERT_TRUE(help.ok());
  EXPECT_TRUE(help->help);
}

TEST(InferRunnerTest, RuntimeErrorsNameTheProblem) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const auto run = [](std::vector<std::string> args) { return RunInfer(*ParseInferOptions(args)).status(); };
  Status s = run({"--model", (golden / "text-tied-f32").string(), "--tokens", "1,300"});
  EXPECT_NE(s.message().find("outside the vocabulary"), std::string::npos) << s.ToString();
  s = run({"--model", (golden / "vlm-tied-bf16").string(), "--tokens", "1,299,2"});
  EXPECT_NE(s.message().find("no image"), std::string::npos) << s.ToString();
  s = run({"--model", (golden / "text-tied-f32").string(), "--tokens", "1", "--pixels",
           (golden / "pixels/pool.safetensors").string(), "--image-size", "10,10"});
  EXPECT_NE(s.message().find("text-only"), std::string::npos) << s.ToString();
  s = run({"--model", (golden / "vlm-tied-bf16").string(), "--tokens", "1,299", "--pixels",
           (golden / "vlm-tied-bf16/config.json").string(), "--image-size", "10,10"});
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace mineru::engine
