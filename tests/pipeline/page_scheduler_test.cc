// The page scheduler on the golden tiny MinerU-shaped model, pages of the sample PDF: every page's text
// equals what the engine writes for that page alone (engine::Generate, one sequence, no scheduler), in
// every setting that must not change it — alone or sharing steps with other users' pages, KV pages of
// 4 and 16 tokens, prefill chunks of 3 and 2048 rows, a KV pool so small that pages are preempted in
// the middle of their decode (swapped to host memory, or dropped and recomputed), static batching.
// Also: KV pages go back the step a page ends or is cancelled, and a one-page job of a second user is
// served before the first user's long job.
#include "pipeline/page_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "document/pdf_document.h"
#include "engine/generator.h"
#include "engine/image_preprocess.h"
#include "engine/prompt_template.h"
#include "engine/tokenizer_prompt.h"
#include "pipeline/model_text.h"
#include "residency/host_device.h"
#include "residency/residency_manager.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/tiny_vlm_model.h"
#include "tests/support/shared_data.h"

namespace mineru::pipeline {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr int64_t kMaxNewTokens = 40;
constexpr int kPages = 4;
constexpr double kDpi = 72;

struct PageImage {
  at::Tensor pixels;
  int64_t width = 0;
  int64_t height = 0;
};

// How a run is set up: the model's KV cache and the scheduler's knobs.
struct RunSetup {
  int64_t kv_page_tokens = 16;
  int64_t kv_tokens = 0;  // 0: room for every page at once
  bool residency = true;  // KV pool in a residency manager (can swap); else engine-owned (recomputes)
  int64_t max_running = 16;
  int64_t prefill_chunk = 2048;
  int64_t max_pages_per_user = 16;
  bool static_batching = false;
};

class PageSchedulerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::optional<fs::path> found = testing::SharedDir();
    if (!found) return;
    const fs::path shared = *found;
    const std::string pdf_path = testing::SamplePdf(shared);
    if (pdf_path.empty()) return;
    tmp_ = new testing::TempDir();
    model_dir_ = fs::path(tmp_->path()) / "model";
    ASSERT_EQ(testing::MakeTinyVlmModel(shared / "golden/vlm-untied-f32", model_dir_), "");
    auto tokenizer = engine::Tokenizer::FromFile(model_dir_ / "tokenizer.json");
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
    tokenizer_ = std::move(*tokenizer).release();
    auto config = engine::ModelConfig::Load(model_dir_);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    config_ = new engine::ModelConfig(*config);
    auto image_token = engine::ResolveImageTokenId(*tokenizer_, config_->multimodal->image_token_index);
    ASSERT_TRUE(image_token.ok());
    auto prompt = engine::EncodeImagePrompt(*tokenizer_, engine::MineruPrompt(), *image_token);
    ASSERT_TRUE(prompt.ok());
    prompt_ = new std::vector<int64_t>(prompt->begin(), prompt->end());
    images_ = new std::vector<PageImage>(RenderPages(pdf_path));
    expected_ = new std::vector<std::string>();
    expected_at_limit_ = new std::vector<bool>();
    for (const PageImage& page : *images_) {
      PageText alone = EngineAlone(page);
      expected_->push_back(std::move(alone.text));
      expected_at_limit_->push_back(alone.at_token_limit);
    }
  }

  // The model folder goes with the suite (the rest is the process's until it ends).
  static void TearDownTestSuite() {
    delete tmp_;
    tmp_ = nullptr;
  }

  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    if (images_ == nullptr) GTEST_SKIP() << "the sample PDF is missing from ../shared/corpus";
  }

  static std::vector<PageImage> RenderPages(const std::string& pdf_path) {
    std::ifstream in(pdf_path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto pdf = document::PdfDocument::Open(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
        document::DocumentLimits{}, nullptr);
    EXPECT_TRUE(pdf.ok()) << pdf.status().ToString();
    engine::ImagePreprocessOptions po;
    po.anyres.tile_size = static_cast<int>(config_->multimodal->vision.image_size);
    po.anyres.max_tiles_per_side = static_cast<int>(config_->multimodal->max_grid_side);
    std::vector<PageImage> pages;
    for (int i = 0; i < std::min(kPages, (*pdf)->page_count()); ++i) {
      auto render = (*pdf)->RenderPage(i, kDpi);
      EXPECT_TRUE(render.ok()) << render.status().ToString();
      const engine::ImageU8View view{render->pixels.data(), render->width, render->height, 3,
                                     static_cast<size_t>(render->width) * 3};
      auto pre = engine::PreprocessImage(view, po);
      EXPECT_TRUE(pre.ok()) << pre.status().ToString();
      pages.push_back({at::from_blob(pre->pixel_values.data(),
                                     {pre->num_crops, 3, pre->crop_size, pre->crop_size}, at::kFloat)
                           .clone(),
                       pre->image_width, pre->image_height});
    }
    return pages;
  }

  // The reference: the engine on one page, all weights resident, one sequence.
  static PageText EngineAlone(const PageImage& page, int64_t max_new_tokens = kMaxNewTokens) {
    engine::ModelOptions mo;
    mo.kv_capacity_tokens = 16384;
    auto model = engine::Mineru2Model::Load(model_dir_, mo);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    auto image = (*model)->EncodeImage(page.pixels, page.width, page.height);
    EXPECT_TRUE(image.ok()) << image.status().ToString();
    engine::GenerationRequest req;
    req.prompt_embeds = *(*model)->EmbedPrompt(*prompt_, &*image);
    req.sampling.max_new_tokens = max_new_tokens;
    req.sampling.no_repeat_ngram_size = config_->generation.no_repeat_ngram_size;
    req.sampling.eos_token_ids = config_->generation.eos_token_ids;
    auto results =
        engine::Generate((*model)->decoder(), std::span<const engine::GenerationRequest>(&req, 1), {});
    EXPECT_TRUE(results.ok()) << results.status().ToString();
    int64_t dropped = 0;
    return {*DecodeModelText(*tokenizer_, (*results)[0].generated, &dropped), !(*results)[0].stopped_at_eos};
  }

  // The spliced prompt of the largest test page: what one page's prefill writes into the KV cache.
  static int64_t PromptTokens() {
    int64_t most = 0;
    engine::ModelOptions mo;
    auto model = engine::Mineru2Model::Load(model_dir_, mo);
    for (const PageImage& p : *images_) {
      most = std::max(
          most, static_cast<int64_t>(prompt_->size()) - 1 + *(*model)->ImageTokensFor(p.width, p.height));
    }
    return most;
  }

  // A model and a scheduler built for `setup`.
  struct Rig {
    residency::HostDevice device;
    std::unique_ptr<residency::ResidencyManager> manager;
    std::unique_ptr<engine::Mineru2Model> model;
    std::unique_ptr<PageScheduler> scheduler;
  };
  static std::unique_ptr<Rig> Build(const RunSetup& setup) {
    auto rig = std::make_unique<Rig>();
    engine::ModelOptions mo;
    mo.kv_page_tokens = setup.kv_page_tokens;
    mo.kv_capacity_tokens = setup.kv_tokens > 0 ? setup.kv_tokens : kPages * (PromptTokens() + kMaxNewTokens);
    if (setup.residency) {
      residency::ResidencyOptions ro;
      ro.gpu_budget_bytes = 256ull << 20;
      ro.pinned_budget_bytes = 64ull << 20;
      auto manager = residency::ResidencyManager::Create(&rig->device, ro);
      EXPECT_TRUE(manager.ok()) << manager.status().ToString();
      rig->manager = std::move(*manager);
      mo.residency = rig->manager.get();
    }
    auto model = engine::Mineru2Model::Load(model_dir_, mo);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    rig->model = std::move(*model);
    PageSchedulerOptions so;
    so.model = rig->model.get();
    so.tokenizer = tokenizer_;
    so.prompt_tokens = *prompt_;
    so.max_new_tokens = kMaxNewTokens;
    so.no_repeat_ngram_size = config_->generation.no_repeat_ngram_size;
    so.eos_token_ids = config_->generation.eos_token_ids;
    so.max_running = setup.max_running;
    so.prefill_chunk_tokens = setup.prefill_chunk;
    so.step_tokens = setup.prefill_chunk + setup.max_running;
    so.max_pages_per_user = setup.max_pages_per_user;
    so.static_batching = setup.static_batching;
    rig->scheduler = std::make_unique<PageScheduler>(std::move(so));
    return rig;
  }

  static PageRequest Request(int page, uint32_t user, uint64_t ticket) {
    const PageImage& img = (*images_)[static_cast<size_t>(page)];
    PageRequest r;
    r.pixels = img.pixels;
    r.image_width = img.width;
    r.image_height = img.height;
    r.user = user;
    r.ticket = ticket;
    return r;
  }

  // Every test page submitted at once (page i by user i), answered in order.
  static std::vector<std::string> AllTogether(PageScheduler& s) {
    std::vector<std::future<Result<PageText>>> answers;
    for (int i = 0; i < PageCount(); ++i)
      answers.push_back(s.Submit(Request(i, static_cast<uint32_t>(i), i + 1)));
    std::vector<std::string> texts;
    for (auto& a : answers) {
      Result<PageText> t = a.get();
      EXPECT_TRUE(t.ok()) << t.status().ToString();
      texts.push_back(t.ok() ? t->text : "");
    }
    return texts;
  }

  // The stats once the scheduler has published the pass that answered the last page.
  static PipelineStats Settled(PageScheduler& s, uint64_t pages) {
    for (int i = 0; i < 200 && s.stats().pages_done < pages; ++i) std::this_thread::sleep_for(10ms);
    return s.stats();
  }

  // KV pages in use once the scheduler has published its last pass.
  static int64_t SettledKvPagesUsed(PageScheduler& s) {
    for (int i = 0; i < 200 && s.stats().kv_pages_used != 0; ++i) std::this_thread::sleep_for(10ms);
    return s.stats().kv_pages_used;
  }

  static int PageCount() { return static_cast<int>(images_->size()); }
  static const std::vector<std::string>& Expected() { return *expected_; }
  static bool ExpectedAtLimit(int page) { return (*expected_at_limit_)[static_cast<size_t>(page)]; }

  static inline testing::TempDir* tmp_ = nullptr;
  static inline fs::path model_dir_;
  static inline engine::Tokenizer* tokenizer_ = nullptr;
  static inline engine::ModelConfig* config_ = nullptr;
  static inline std::vector<int64_t>* prompt_ = nullptr;
  static inline std::vector<PageImage>* images_ = nullptr;
  static inline std::vector<std::string>* expected_ = nullptr;
  static inline std::vector<bool>* expected_at_limit_ = nullptr;
};

TEST_F(PageSchedulerTest, EachPageAloneWritesWhatTheEngineWritesForIt) {
  auto rig = Build({});
  for (int i = 0; i < PageCount(); ++i) {
    Result<PageText> text = rig->scheduler->Submit(Request(i, 0, 1)).get();
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    EXPECT_EQ(text->text, Expected()[static_cast<size_t>(i)]) << "page " << i + 1;
    EXPECT_EQ(text->at_token_limit, ExpectedAtLimit(i)) << "page " << i + 1;
  }
  EXPECT_NE(Expected()[0], Expected()[1]) << "different pages, same text: the image did not reach the model";
  EXPECT_EQ(SettledKvPagesUsed(*rig->scheduler), 0);
}

// A page's own token limit below what the model would write: the engine's text at that limit, and the
// answer says it was cut there.
TEST_F(PageSchedulerTest, APageCutAtItsTokenLimitSaysSo) {
  auto rig = Build({});
  PageRequest r = Request(0, 0, 1);
  r.max_new_tokens = 3;
  Result<PageText> text = rig->scheduler->Submit(std::move(r)).get();
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const PageText alone = EngineAlone((*images_)[0], 3);
  EXPECT_EQ(text->text, alone.text);
  EXPECT_TRUE(text->at_token_limit);
  EXPECT_EQ(text->at_token_limit, alone.at_token_limit);
}

TEST_F(PageSchedulerTest, PagesOfSeveralUsersShareStepsAndWriteTheSameText) {
  auto rig = Build({});
  EXPECT_EQ(AllTogether(*rig->scheduler), Expected());
  const PipelineStats st = Settled(*rig->scheduler, PageCount());
  EXPECT_GE(st.largest_step_pages, 2u) << "the pages never shared a step";
  EXPECT_EQ(st.pages_done, static_cast<uint64_t>(PageCount()));
  EXPECT_EQ(st.peak_kv_pages_over_need, 0) << "KV pages were held beyond what the written tokens need";
  EXPECT_EQ(SettledKvPagesUsed(*rig->scheduler), 0);
}

TEST_F(PageSchedulerTest, KvPageSizeAndPrefillChunkDoNotChangeTheText) {
  for (const RunSetup& setup :
       {RunSetup{.kv_page_tokens = 4, .prefill_chunk = 3}, RunSetup{.kv_page_tokens = 16, .prefill_chunk = 3},
        RunSetup{.kv_page_tokens = 4, .prefill_chunk = 2048}}) {
    auto rig = Build(setup);
    EXPECT_EQ(AllTogether(*rig->scheduler), Expected())
        << "kv_page_tokens " << setup.kv_page_tokens << ", prefill_chunk " << setup.prefill_chunk;
  }
}

TEST_F(PageSchedulerTest, PagesPreemptedInTheirDecodeResumeWithTheSameText) {
  // Room for two prompts and a few tokens: two pages prefill, then run the pool dry as they decode.
  const int64_t kv = 2 * PromptTokens() + 24;
  for (bool swap : {true, false}) {
    auto rig = Build({.kv_tokens = kv, .residency = swap, .prefill_chunk = 256});
    EXPECT_EQ(AllTogether(*rig->scheduler), Expected()) << (swap ? "swapped" : "recomputed");
    const PipelineStats st = Settled(*rig->scheduler, PageCount());
    EXPECT_GE(st.preemptions, 1u) << "the pool never ran dry: the test does not test preemption";
    EXPECT_EQ(SettledKvPagesUsed(*rig->scheduler), 0);
  }
}

TEST_F(PageSchedulerTest, StaticBatchingWritesTheSameText) {
  auto rig = Build({.static_batching = true});
  EXPECT_EQ(AllTogether(*rig->scheduler), Expected());
  EXPECT_EQ(SettledKvPagesUsed(*rig->scheduler), 0);
}

TEST_F(PageSchedulerTest, AOnePageJobOfAnotherUserIsServedWhileALongJobHoldsEverySlot) {
  auto rig = Build({.max_running = 2, .max_pages_per_user = 2});
  PageScheduler& s = *rig->scheduler;
  // Pages that write until cancelled (unless the model ends them) hold both slots.
  constexpr int kLong = 6;
  std::vector<std::future<Result<PageText>>> long_job;
  for (int i = 0; i < kLong; ++i) {
    PageRequest r = Request(i % PageCount(), 1, 100);
    r.max_new_tokens = 100000;
    long_job.push_back(s.Submit(std::move(r)));
  }
  for (int i = 0; i < 3000 && s.stats().decoding < 2; ++i) std::this_thread::sleep_for(1ms);
  std::future<Result<PageText>> short_job = s.Submit(Request(1, 2, 200));
  ASSERT_EQ(short_job.wait_for(120s), std::future_status::ready) << "the one-page job never ran";
  int long_done = 0;
  for (auto& f : long_job) long_done += f.wait_for(0s) == std::future_status::ready;
  Result<PageText> text = short_job.get();
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(text->text, Expected()[1]) << "a page that shared steps with a preempted one";
  EXPECT_EQ(long_done, 0) << "the long job's pages ended first: the test did not test fairness";
  EXPECT_GE(s.stats().preemptions, 1u);
  s.CancelTicket(100);
  for (auto& f : long_job) EXPECT_EQ(f.get().status().code(), StatusCode::kCancelled);
  EXPECT_EQ(SettledKvPagesUsed(s), 0);
}

TEST_F(PageSchedulerTest, CancellingADecodingPageFreesItsKvAtOnce) {
  auto rig = Build({});
  PageScheduler& s = *rig->scheduler;
  PageRequest endless = Request(0, 1, 7);
  endless.max_new_tokens = 100000;  // still writing when cancelled (unless the model ends it)
  std::future<Result<PageText>> page = s.Submit(std::move(endless));
  std::future<Result<PageText>> other = s.Submit(Request(1, 2, 8));
  for (int i = 0; i < 3000 && s.stats().decoding < 1; ++i) std::this_thread::sleep_for(1ms);
  ASSERT_GE(s.stats().decoding, 1) << "no page reached its decode";
  s.CancelTicket(7);
  Result<PageText> cancelled = page.get();
  EXPECT_EQ(cancelled.status().code(), StatusCode::kCancelled) << cancelled.status().ToString();
  Result<PageText> kept = other.get();
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->text, Expected()[1]) << "a neighbour's cancel changed a page's text";
  EXPECT_EQ(SettledKvPagesUsed(s), 0);
}

}  // namespace
}  // namespace mineru::pipeline
