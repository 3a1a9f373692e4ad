// The model backend in the real daemon: minerud with a MinerU-shaped model folder (the golden tiny
// random checkpoint) parses a PDF submitted with mineructl, and the model text of every page equals what
// the engine computes for that page alone in this process (all weights resident, one sequence, no
// batching, no residency manager) — at any VRAM budget, for a page range, with pages batched together.
#include <gtest/gtest.h>
#include <signal.h>

#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "document/pdf_document.h"
#include "engine/generator.h"
#include "engine/image_preprocess.h"
#include "engine/mineru2_model.h"
#include "engine/prompt_template.h"
#include "engine/tokenizer.h"
#include "engine/tokenizer_prompt.h"
#include "pipeline/model_text.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/tiny_vlm_model.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kMaxNewTokens = 40;

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<uint8_t> ReadBytes(const fs::path& p) {
  const std::string s = ReadAll(p);
  return {s.begin(), s.end()};
}

// NAME_model_output.txt: pages joined by a line of 50 dashes.
std::vector<std::string> SplitPages(const std::string& text) {
  const std::string sep = "\n" + std::string(50, '-') + "\n";
  std::vector<std::string> pages;
  size_t start = 0;
  for (size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + sep.size()) {
    pages.push_back(text.substr(start, at - start));
  }
  pages.push_back(text.substr(start));
  return pages;
}

// The engine on one page, the plain way: render at 200 DPI, preprocess, encode, splice, generate.
std::string EnginePageText(const fs::path& model_dir, const fs::path& pdf_path, int page) {
  const std::vector<uint8_t> bytes = ReadBytes(pdf_path);
  auto pdf = document::PdfDocument::Open(bytes, document::DocumentLimits{}, nullptr);
  EXPECT_TRUE(pdf.ok()) << pdf.status().ToString();
  auto render = (*pdf)->RenderPage(page, 200);
  EXPECT_TRUE(render.ok()) << render.status().ToString();
  auto tokenizer = engine::Tokenizer::FromFile(model_dir / "tokenizer.json");
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  engine::ModelOptions mo;
  mo.kv_capacity_tokens = 16384;
  auto model = engine::Mineru2Model::Load(model_dir, mo);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  const auto& config = (*model)->config();
  engine::ImagePreprocessOptions po;
  po.anyres.tile_size = static_cast<int>(config.multimodal->vision.image_size);
  po.anyres.max_tiles_per_side = static_cast<int>(config.multimodal->max_grid_side);
  const engine::ImageU8View view{render->pixels.data(), render->width, render->height, 3,
                                 static_cast<size_t>(render->width) * 3};
  auto pre = engine::PreprocessImage(view, po);
  EXPECT_TRUE(pre.ok()) << pre.status().ToString();
  at::Tensor pixels =
      at::from_blob(pre->pixel_values.data(), {pre->num_crops, 3, pre->crop_size, pre->crop_size}, at::kFloat)
          .clone();
  auto image_token = engine::ResolveImageTokenId(**tokenizer, config.multimodal->image_token_index);
  auto prompt = engine::EncodeImagePrompt(**tokenizer, engine::MineruPrompt(), *image_token);
  EXPECT_TRUE(prompt.ok()) << prompt.status().ToString();
  const std::vector<int64_t> tokens(prompt->begin(), prompt->end());
  auto image = (*model)->EncodeImage(pixels, pre->image_width, pre->image_height);
  EXPECT_TRUE(image.ok()) << image.status().ToString();
  engine::GenerationRequest req;
  req.prompt_embeds = *(*model)->EmbedPrompt(tokens, &*image);
  req.sampling.max_new_tokens = kMaxNewTokens;
  req.sampling.no_repeat_ngram_size = config.generation.no_repeat_ngram_size;
  req.sampling.eos_token_ids = config.generation.eos_token_ids;
  auto results =
      engine::Generate((*model)->decoder(), std::span<const engine::GenerationRequest>(&req, 1), {});
  EXPECT_TRUE(results.ok()) << results.status().ToString();
  int64_t dropped = 0;
  auto text = pipeline::DecodeModelText(**tokenizer, (*results)[0].generated, &dropped);
  EXPECT_TRUE(text.ok());
  return *text;
}

class ModelBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    golden_ = shared / "golden/vlm-untied-f32";
    pdf_ = SamplePdf(shared);
    if (pdf_.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    model_ = fs::path(tmp_.path()) / "model";
    const std::string made = MakeTinyVlmModel(golden_, model_);
    ASSERT_EQ(made, "");
    daemon_.emplace(tmp_.path());
  }

  const std::string& Expected(int page) {
    static std::map<int, std::string> cache;
    auto it = cache.find(page);
    if (it == cache.end()) it = cache.emplace(page, EnginePageText(model_, pdf_, page)).first;
    return it->second;
  }

  std::vector<std::string> Args(std::vector<std::string> more) const {
    std::vector<std::string> a = {"--model", model_.string(), "--set",
                                  "max_new_tokens=" + std::to_string(kMaxNewTokens)};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }

  // The smallest vram_budget minerud accepts for this model, from its own refusal of a tiny one.
  uint64_t MinimumBudget() {
    RunResult r = RunProgram({MinerudPath(), "--model", model_.string(), "--vram-budget", "1000", "--set",
                              "max_new_tokens=" + std::to_string(kMaxNewTokens), "--socket",
                              (fs::path(tmp_.path()) / "min.sock").string(), "--state-dir",
                              (fs::path(tmp_.path()) / "min-state").string()});
    EXPECT_EQ(r.exit_code, 78) << r.err;
    const std::string key = "needs a vram_budget of at least ";
    const size_t at = r.err.find(key);
    EXPECT_NE(at, std::string::npos) << r.err;
    return at == std::string::npos ? 0 : std::stoull(r.err.substr(at + key.size()));
  }

  json Stats() {
    RunResult r = daemon_->Ctl({"--json", "stats"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }

  TempDir tmp_;
  fs::path golden_, model_;
  std::string pdf_;
  std::optional<DaemonHarness> daemon_;
};

TEST_F(ModelBackendTest, EveryPageMatchesTheEngineAloneAndPagesShareBatches) {
  ASSERT_TRUE(daemon_->Start(Args({"--set", "max_batch=3"})));
  const fs::path out = fs::path(tmp_.path()) / "out";
  RunResult r =
      daemon_->Ctl({"-q", "--json", "submit", "--stream", pdf_, "-o", out.string(), "--name", "doc"});
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  // Each page's model text also came while the job ran.
  std::istringstream lines(r.out);
  int streamed = 0;
  for (std::string line; std::getline(lines, line);) {
    json event = json::parse(line, nullptr, false);
    if (event.is_discarded() || event.value("event", "") != "page") continue;
    EXPECT_EQ(event["page_idx"], streamed);
    EXPECT_EQ(event.value("model_output", ""), Expected(streamed));
    ++streamed;
  }
  EXPECT_EQ(streamed, 4) << r.out;
  const std::vector<std::string> pages = SplitPages(ReadAll(out / "doc_model_output.txt"));
  ASSERT_EQ(pages.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(pages[static_cast<size_t>(i)], Expected(i)) << "page " << i + 1;
    EXPECT_FALSE(Expected(i).empty()) << "the model wrote nothing for page " << i + 1;
  }
  EXPECT_NE(Expected(0), Expected(1)) << "different pages, same text: the image did not reach the model";
  EXPECT_TRUE(fs::exists(out / "doc.md"));
  json content = json::parse(ReadAll(out / "doc_content_list.json"), nullptr, false);
  EXPECT_TRUE(content.is_array());

  json stats = Stats();
  EXPECT_GE(stats["counters"]["pipeline_largest_step_pages"].get<double>(), 2) << stats.dump();
  EXPECT_EQ(stats["counters"]["pipeline_pages_total"].get<double>(), 4) << stats.dump();
  EXPECT_EQ(stats["counters"]["threads_past_deadline"].get<double>(), 0) << stats.dump();
  EXPECT_EQ(daemon_->Log().find("past its deadline"), std::string::npos) << daemon_->Log();
  bool saw_gpu = false;
  for (const json& t : stats["tiers"]) {
    if (t["tier"] != "gpu") continue;
    saw_gpu = true;
    EXPECT_GT(t["peak_bytes"].get<double>(), 0);
    EXPECT_LE(t["peak_bytes"].get<double>(), t["budget_bytes"].get<double>());
  }
  EXPECT_TRUE(saw_gpu) << stats.dump();
}

TEST_F(ModelBackendTest, SmallVramBudgetAndAPageRangeGiveTheSameText) {
  // Room for one page's KV cache, the largest workspace (here the vision encode's: the tiny model's
  // 0.5 MB of weights are dwarfed by a page's 17 crops of activations) and the largest unit, plus 30%
  // of the weights: while the vision workspace is held, the rest of the weights cannot stay, so they
  // are loaded again for every page.
  const uint64_t weights = fs::file_size(golden_ / "model.safetensors");
  const uint64_t minimum = MinimumBudget();
  ASSERT_GT(minimum, 0u);
  const uint64_t budget = minimum + weights * 3 / 10;
  ASSERT_TRUE(daemon_->Start(Args({"--vram-budget", std::to_string(budget)})));
  const fs::path out = fs::path(tmp_.path()) / "out";
  RunResult r = daemon_->Ctl({"-q", "submit", pdf_, "-o", out.string(), "--name", "doc", "--pages", "2-3"});
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  const std::vector<std::string> pages = SplitPages(ReadAll(out / "doc_model_output.txt"));
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[0], Expected(1));
  EXPECT_EQ(pages[1], Expected(2));
  json content = json::parse(ReadAll(out / "doc_content_list.json"), nullptr, false);
  ASSERT_TRUE(content.is_array());
  for (const json& item : content) EXPECT_TRUE(item["page_idx"] == 1 || item["page_idx"] == 2) << item.dump();

  json stats = Stats();
  for (const json& t : stats["tiers"]) {
    if (t["tier"] != "gpu") continue;
    EXPECT_EQ(t["budget_bytes"].get<double>(), static_cast<double>(budget));
    EXPECT_LE(t["peak_bytes"].get<double>(), static_cast<double>(budget));
  }
  EXPECT_GT(stats["counters"]["model_bytes_promoted_total"].get<double>(), static_cast<double>(weights))
      << stats.dump();
}

TEST_F(ModelBackendTest, FourClientsOfFiveDocumentsEachKeepTheDeviceTierWithinItsBudget) {
  // Half the weights beyond the smallest budget: layers stream while four clients' pages share steps.
  const uint64_t weights = fs::file_size(golden_ / "model.safetensors");
  const uint64_t minimum = MinimumBudget();
  ASSERT_GT(minimum, 0u);
  const uint64_t budget = minimum + weights / 2;
  ASSERT_TRUE(daemon_->Start(Args({"--vram-budget", std::to_string(budget), "--set", "max_batch=4"})));
  constexpr int kClients = 4, kDocuments = 5;
  auto page_of = [](int client, int document) { return (client + document) % 4; };
  std::vector<std::vector<std::string>> texts(kClients);
  std::vector<std::string> errors(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int d = 0; d < kDocuments; ++d) {
        const fs::path out = fs::path(tmp_.path()) / ("out-" + std::to_string(c) + "-" + std::to_string(d));
        RunResult r = daemon_->Ctl({"-q", "submit", pdf_, "-o", out.string(), "--name", "doc", "--pages",
                                    std::to_string(page_of(c, d) + 1)});
        if (r.exit_code != 0) {
          errors[static_cast<size_t>(c)] = r.err;
          return;
        }
        texts[static_cast<size_t>(c)].push_back(ReadAll(out / "doc_model_output.txt"));
      }
    });
  }
  for (std::thread& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) {
    ASSERT_EQ(errors[static_cast<size_t>(c)], "") << "client " << c << daemon_->Log();
    for (int d = 0; d < kDocuments; ++d) {
      EXPECT_EQ(texts[static_cast<size_t>(c)][static_cast<size_t>(d)], Expected(page_of(c, d)))
          << "client " << c << ", document " << d;
    }
  }
  json stats = Stats();
  EXPECT_EQ(stats["counters"]["pipeline_pages_total"].get<double>(), kClients * kDocuments) << stats.dump();
  bool saw_gpu = false;
  for (const json& t : stats["tiers"]) {
    if (t["tier"] != "gpu") continue;
    saw_gpu = true;
    EXPECT_EQ(t["budget_bytes"].get<double>(), static_cast<double>(budget));
    EXPECT_LE(t["peak_bytes"].get<double>(), static_cast<double>(budget)) << stats.dump();
  }
  EXPECT_TRUE(saw_gpu) << stats.dump();
}

TEST_F(ModelBackendTest, IdleWeightsLeaveTheGpuTierAfterKeepAliveAndComeBackForTheNextPage) {
  ASSERT_TRUE(daemon_->Start(Args({"--set", "keep_alive=300ms"})));
  const fs::path out = fs::path(tmp_.path()) / "out";
  auto gpu = [&](const char* key) {  // a field of the gpu tier's row
    const json stats = Stats();
    for (const json& t : stats["tiers"]) {
      if (t["tier"] == "gpu") return t[key].get<double>();
    }
    return -1.0;
  };
  auto idle_demotions = [&] { return Stats()["counters"]["model_idle_demotions_total"].get<double>(); };
  RunResult r = daemon_->Ctl({"-q", "submit", pdf_, "-o", out.string(), "--name", "a", "--pages", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  // The daemon's tick (once a second) hands the demotion to the model thread. (The weights the load
  // prefetched may already have been demoted once before the page came.)
  for (int i = 0; i < 100 && gpu("units_resident") != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(gpu("units_resident"), 0) << Stats().dump();
  const double demotions = idle_demotions();
  EXPECT_GE(demotions, 1);
  const double promoted = Stats()["counters"]["model_bytes_promoted_total"].get<double>();
  r = daemon_->Ctl({"-q", "submit", pdf_, "-o", out.string(), "--name", "b", "--pages", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  EXPECT_EQ(ReadAll(out / "b_model_output.txt"), Expected(0)) << "same text after the weights came back";
  // They came back for the page, and leave again once idle: one demotion more.
  EXPECT_GT(Stats()["counters"]["model_bytes_promoted_total"].get<double>(), promoted);
  for (int i = 0; i < 100 && idle_demotions() <= demotions; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(idle_demotions(), demotions + 1);
  EXPECT_EQ(gpu("units_resident"), 0);
}

TEST_F(ModelBackendTest, CheckConfigOpensTheModelByNameAndInfoNamesIt) {
  const std::string models = tmp_.path();  // holds the folder "model"
  RunResult check = RunProgram({MinerudPath(), "--check-config", "--set", "models_dir=" + models, "--model",
                                "model", "--state-dir", tmp_.path() + "/state"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("model_dir = " + model_.string() + "\n"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("models_dir = " + models + "\n"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("model        MinerU 2.0 from " + model_.string()), std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("configuration OK"), std::string::npos) << check.out;

  // A folder that is not a model: the file at fault is named, and the exit is a configuration error.
  fs::create_directories(fs::path(models) / "empty");
  RunResult bad = RunProgram({MinerudPath(), "--check-config", "--set", "models_dir=" + models, "--model",
                              "empty", "--state-dir", tmp_.path() + "/state"});
  EXPECT_EQ(bad.exit_code, 78) << bad.out;
  EXPECT_NE(bad.out.find("model        ERROR: "), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("config.json"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("configuration has errors"), std::string::npos) << bad.out;

  ASSERT_TRUE(daemon_->Start({"--set", "models_dir=" + models, "--model", "model", "--set",
                              "max_new_tokens=" + std::to_string(kMaxNewTokens)}));
  RunResult info = daemon_->Ctl({"--json", "info"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const json j = json::parse(info.out);
  EXPECT_EQ(j["backend"], "vlm");
  EXPECT_EQ(j["model_dir"], model_.string());
  EXPECT_NE(j["model"].get<std::string>().find("MinerU 2.0"), std::string::npos) << j.dump();
  const json stats = Stats();
  for (const json& t : stats["tiers"]) {
    if (t["tier"] == "gpu") {
      EXPECT_EQ(j["vram_budget_bytes"].get<double>(), t["budget_bytes"].get<double>());
    }
  }
  EXPECT_GT(j["vram_budget_bytes"].get<uint64_t>(), 0u);
  RunResult status = daemon_->Ctl({"daemon-status"});
  EXPECT_NE(status.out.find("backend vlm; model " + model_.string()), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("VRAM budget "), std::string::npos) << status.out;
}

TEST_F(ModelBackendTest, APageRangePastTheEndFailsTheJobClearly) {
  ASSERT_TRUE(daemon_->Start(Args({})));
  RunResult r =
      daemon_->Ctl({"submit", pdf_, "-o", (fs::path(tmp_.path()) / "out").string(), "--pages", "9-"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("starts past the end"), std::string::npos) << r.err;
}

TEST_F(ModelBackendTest, SighupAppliesANewVramBudgetAndRefusesAnImpossibleOne) {
  const fs::path conf = fs::path(tmp_.path()) / "minerud.conf";
  const uint64_t weights = fs::file_size(golden_ / "model.safetensors");
  const uint64_t minimum = MinimumBudget();
  ASSERT_GT(minimum, 0u);
  const uint64_t large = minimum + weights * 2, small = minimum + weights / 2;
  std::ofstream(conf) << "vram_budget = " << large << "\n";
  ASSERT_TRUE(daemon_->Start(Args({"--config", conf.string()})));
  auto gpu_budget = [&] {
    const json stats = Stats();
    for (const json& t : stats["tiers"]) {
      if (t["tier"] == "gpu") return t["budget_bytes"].get<double>();
    }
    return -1.0;
  };
  EXPECT_EQ(gpu_budget(), static_cast<double>(large));
  std::ofstream(conf) << "vram_budget = " << small << "\n";
  ASSERT_EQ(kill(daemon_->pid(), SIGHUP), 0);
  ASSERT_TRUE(daemon_->WaitNotify("RELOADING=1")) << daemon_->Log();
  for (int i = 0; i < 100 && gpu_budget() != static_cast<double>(small); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(gpu_budget(), static_cast<double>(small));
  // A budget below the minimum cannot run a page: the reload is refused and the old one stays.
  std::ofstream(conf) << "vram_budget = " << minimum / 2 << "\n";
  ASSERT_EQ(kill(daemon_->pid(), SIGHUP), 0);
  for (int i = 0; i < 100 && daemon_->Log().find("reload failed") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(daemon_->Log().find("needs a vram_budget of at least"), std::string::npos) << daemon_->Log();
  EXPECT_EQ(gpu_budget(), static_cast<double>(small));
  const fs::path out = fs::path(tmp_.path()) / "out";
  RunResult r = daemon_->Ctl({"-q", "submit", pdf_, "-o", out.string(), "--name", "doc", "--pages", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  EXPECT_EQ(SplitPages(ReadAll(out / "doc_model_output.txt")).at(0), Expected(0));
}

TEST_F(ModelBackendTest, ABudgetTooSmallForOnePageIsRefusedAtStartNamingTheMinimum) {
  // MinimumBudget() checks the refusal (exit 78, the message); the minimum itself then works.
  const uint64_t minimum = MinimumBudget();
  ASSERT_GT(minimum, fs::file_size(golden_ / "model.safetensors") / 4);
  ASSERT_TRUE(daemon_->Start(Args({"--vram-budget", std::to_string(minimum)})));
  const fs::path out = fs::path(tmp_.path()) / "out";
  RunResult r = daemon_->Ctl({"-q", "submit", pdf_, "-o", out.string(), "--name", "doc", "--pages", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  EXPECT_EQ(SplitPages(ReadAll(out / "doc_model_output.txt")).at(0), Expected(3));
}

TEST_F(ModelBackendTest, MineructlBudgetChangesTheVramBudgetAtOnce) {
  const uint64_t weights = fs::file_size(golden_ / "model.safetensors");
  const uint64_t minimum = MinimumBudget();
  ASSERT_GT(minimum, 0u);
  ASSERT_TRUE(daemon_->Start(Args({"--vram-budget", std::to_string(minimum + 2 * weights)})));
  const uint64_t small = minimum + weights / 3;
  RunResult r = daemon_->Ctl({"--json", "budget", std::to_string(small)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["vram_budget_bytes"].get<uint64_t>(), small);
  const json stats = Stats();
  for (const json& t : stats["tiers"]) {
    if (t["tier"] == "gpu") {
      EXPECT_EQ(t["budget_bytes"].get<uint64_t>(), small) << stats.dump();
    }
  }
  // Too small: refused, naming the minimum; the budget stays.
  r = daemon_->Ctl({"budget", "1000"});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("needs a vram_budget of at least"), std::string::npos) << r.err;
  // Pages run under the new budget and give the same text.
  const fs::path out = fs::path(tmp_.path()) / "out";
  r = daemon_->Ctl({"-q", "submit", pdf_, "-o", out.string(), "--name", "doc", "--pages", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  EXPECT_EQ(ReadAll(out / "doc_model_output.txt"), Expected(1));
  const json after = Stats();
  for (const json& t : after["tiers"]) {
    if (t["tier"] == "gpu") {
      EXPECT_EQ(t["budget_bytes"].get<uint64_t>(), small) << after.dump();
    }
  }
}

TEST_F(ModelBackendTest, AModelFolderWithoutATokenizerIsAConfigErrorNamingTheFile) {
  fs::remove(model_ / "tokenizer.json");
  RunResult r = RunProgram({MinerudPath(), "--model", model_.string(), "--socket",
                            (fs::path(tmp_.path()) / "s.sock").string(), "--state-dir",
                            (fs::path(tmp_.path()) / "state").string()});
  EXPECT_EQ(r.exit_code, 78) << r.err;
  EXPECT_NE(r.err.find("tokenizer.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mineru::testing
