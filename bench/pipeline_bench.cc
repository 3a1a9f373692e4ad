// pipeline_bench: what the page scheduler buys over running pages one at a time and over the static
// batcher, side by side in one run on the same pages.
//
// A workload of single-page documents whose output lengths are drawn (fixed seed) between --min-tokens
// and --max-tokens; each page stops at its drawn length (EOS is not honoured, so every mode writes the
// same number of tokens). C clients (1, 4, 8 by default) each submit their pages one after another,
// as a client waiting for its document does. Three modes over one model:
//   (a) one page at a time (max_batch 1): how MinerU's transformers backend works;
//   (b) static batching: a batch starts when the last ended, each page reserves its worst-case KV;
//   (c) the pipeline: continuous batching, KV on demand, one prefill chunk per step.
// Prints pages/s and tokens/s of each, the ratios c/a and c/b, the most KV pages held beyond what live
// pages need, the process's peak RSS, and whether every page's text is the same in all three modes.
//
// usage: pipeline_bench --model DIR [--pages N] [--clients 1,4,8] [--min-tokens 64] [--max-tokens 1024]
//                       [--image WxH] [--kv-fraction F] [--threads N] [--seed S]
//   --kv-fraction: the KV pool as a fraction of what every client's page needs at its worst (1: 100 %)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "engine/mineru2_model.h"
#include "engine/prompt_template.h"
#include "engine/tokenizer.h"
#include "engine/tokenizer_prompt.h"
#include "pipeline/page_scheduler.h"
#include "residency/host_device.h"
#include "residency/residency_manager.h"

namespace {

using namespace mineru;
using namespace mineru::pipeline;

struct Options {
  std::string model;
  int pages = 16;
  std::vector<int> clients = {1, 4, 8};
  int64_t min_tokens = 64;
  int64_t max_tokens = 1024;
  int64_t width = 400, height = 400;
  double kv_fraction = 1.0;
  int threads = 0;
  uint64_t seed = 42;
};

enum class Mode { kOneAtATime, kStatic, kPipeline };
const char* Name(Mode m) {
  return m == Mode::kOneAtATime ? "(a) one at a time"
         : m == Mode::kStatic   ? "(b) static batch"
                                : "(c) pipeline";
}

struct Workload {
  std::vector<at::Tensor> pixels;  // per page
  std::vector<int64_t> lengths;    // tokens each page writes
};

struct RunResult {
  double seconds = 0;
  uint64_t tokens = 0;
  int64_t over_need = 0;
  uint64_t largest_step = 0;
  uint64_t preemptions = 0;
  std::vector<std::string> texts;
};

bool ParseList(const char* s, std::vector<int>* out) {
  out->clear();
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) out->push_back(std::stoi(part));
  return !out->empty();
}

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!v) return false;
    ++i;
    if (a == "--model")
      o->model = v;
    else if (a == "--pages")
      o->pages = std::atoi(v);
    else if (a == "--clients") {
      if (!ParseList(v, &o->clients)) return false;
    } else if (a == "--min-tokens")
      o->min_tokens = std::atoll(v);
    else if (a == "--max-tokens")
      o->max_tokens = std::atoll(v);
    else if (a == "--image") {
      if (std::sscanf(v, "%ldx%ld", &o->width, &o->height) != 2) return false;
    } else if (a == "--kv-fraction")
      o->kv_fraction = std::atof(v);
    else if (a == "--threads")
      o->threads = std::atoi(v);
    else if (a == "--seed")
      o->seed = std::strtoull(v, nullptr, 10);
    else
      return false;
  }
  return !o->model.empty() && o->pages > 0 && o->min_tokens > 0 && o->max_tokens >= o->min_tokens;
}

uint64_t PeakRssBytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

// One mode with `clients` clients over a fresh model (the same weights and pages each time).
Result<RunResult> RunMode(const Options& o, Mode mode, int clients, const Workload& w,
                          const engine::Tokenizer& tokenizer, const std::vector<int64_t>& prompt) {
  residency::HostDevice device;
  residency::ResidencyOptions ro;
  ro.gpu_budget_bytes = 16ull << 30;
  ro.pinned_budget_bytes = 1ull << 30;
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<residency::ResidencyManager> manager,
                          residency::ResidencyManager::Create(&device, ro));
  engine::ModelOptions mo;
  mo.residency = manager.get();
  // Probe the page's prompt size, then size the pool: every client's page at its worst, times the fraction.
  MINERU_ASSIGN_OR_RETURN(auto probe, engine::Mineru2Model::Load(o.model, engine::ModelOptions{}));
  MINERU_ASSIGN_OR_RETURN(int64_t image_tokens, probe->ImageTokensFor(o.width, o.height));
  const int64_t page_tokens = static_cast<int64_t>(prompt.size()) - 1 + image_tokens + o.max_tokens;
  mo.kv_capacity_tokens =
      std::max<int64_t>(page_tokens, static_cast<int64_t>(o.kv_fraction * clients * page_tokens));
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<engine::Mineru2Model> model,
                          engine::Mineru2Model::Load(o.model, mo));
  PageSchedulerOptions so;
  so.model = model.get();
  so.tokenizer = &tokenizer;
  so.prompt_tokens = prompt;
  so.max_new_tokens = o.max_tokens;
  so.no_repeat_ngram_size = model->config().generation.no_repeat_ngram_size;
  so.max_running = mode == Mode::kOneAtATime ? 1 : std::max(clients, 1);
  so.max_pages_per_user = so.max_running;
  so.step_tokens = so.prefill_chunk_tokens + so.max_running;
  so.static_batching = mode == Mode::kStatic;
  so.compute_threads = at::get_num_threads();
  PageScheduler scheduler(std::move(so));

  RunResult r;
  r.texts.resize(w.pixels.size());
  Stopwatch clock;
  std::vector<std::thread> threads;
  std::vector<Status> failures(static_cast<size_t>(clients));
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      for (size_t p = static_cast<size_t>(c); p < w.pixels.size(); p += static_cast<size_t>(clients)) {
        PageRequest req;
        req.pixels = w.pixels[p];
        req.image_width = o.width;
        req.image_height = o.height;
        req.user = static_cast<uint32_t>(c);
        req.ticket = p + 1;
        req.max_new_tokens = w.lengths[p];
        Result<std::string> text = scheduler.Submit(std::move(req)).get();
        if (!text.ok()) {
          failures[static_cast<size_t>(c)] = text.status();
          return;
        }
        r.texts[p] = std::move(*text);
      }
    });
  }
  for (auto& t : threads) t.join();
  r.seconds = clock.ElapsedSeconds();
  for (const Status& s : failures) MINERU_RETURN_IF_ERROR(s);
  const PipelineStats st = scheduler.stats();
  r.tokens = st.tokens_generated;
  r.over_need = st.peak_kv_pages_over_need;
  r.largest_step = st.largest_step_pages;
  r.preemptions = st.preemptions;
  return r;
}

int Run(const Options& o) {
  at::set_num_threads(o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency()));
  auto tokenizer = engine::Tokenizer::FromFile(o.model + "/tokenizer.json");
  auto config = engine::ModelConfig::Load(o.model);
  if (!tokenizer.ok() || !config.ok()) {
    std::fprintf(stderr, "pipeline_bench: %s\n",
                 (!tokenizer.ok() ? tokenizer.status() : config.status()).ToString().c_str());
    return 1;
  }
  auto image_token = engine::ResolveImageTokenId(**tokenizer, config->multimodal->image_token_index);
  auto ids = image_token.ok() ? engine::EncodeImagePrompt(**tokenizer, engine::MineruPrompt(), *image_token)
                              : Result<std::vector<int32_t>>(image_token.status());
  if (!ids.ok()) {
    std::fprintf(stderr, "pipeline_bench: %s\n", ids.status().ToString().c_str());
    return 1;
  }
  const std::vector<int64_t> prompt(ids->begin(), ids->end());
  auto probe = engine::Mineru2Model::Load(o.model, engine::ModelOptions{});
  auto crops = probe.ok() ? (*probe)->CropsFor(o.width, o.height) : Result<int64_t>(probe.status());
  if (!crops.ok()) {
    std::fprintf(stderr, "pipeline_bench: %s\n", crops.status().ToString().c_str());
    return 1;
  }
  // The workload: random page pixels and drawn lengths, from the seed.
  Workload w;
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int64_t> length(o.min_tokens, o.max_tokens);
  at::manual_seed(static_cast<uint64_t>(o.seed));
  const int64_t size = config->multimodal->vision.image_size;
  for (int p = 0; p < o.pages; ++p) {
    w.pixels.push_back(at::rand({*crops, 3, size, size}) * 2 - 1);
    w.lengths.push_back(length(rng));
  }
  std::printf(
      "pipeline_bench: %s, %d pages of %ldx%ld (%ld crops), %ld-%ld tokens each (seed %lu), %d threads, "
      "KV pool %.0f %% of the clients' worst case\n",
      o.model.c_str(), o.pages, o.width, o.height, *crops, o.min_tokens, o.max_tokens, o.seed,
      at::get_num_threads(), o.kv_fraction * 100);
  std::printf("%-8s %-18s %9s %10s %9s %10s %11s\n", "clients", "mode", "pages/s", "tokens/s", "vs (a)",
              "largest", "KV over need");
  bool identical = true;
  std::vector<std::string> reference;
  for (int clients : o.clients) {
    std::map<Mode, RunResult> results;
    for (Mode mode : {Mode::kOneAtATime, Mode::kStatic, Mode::kPipeline}) {
      Result<RunResult> r = RunMode(o, mode, clients, w, **tokenizer, prompt);
      if (!r.ok()) {
        std::fprintf(stderr, "pipeline_bench: %s: %s\n", Name(mode), r.status().ToString().c_str());
        return 1;
      }
      if (reference.empty()) reference = r->texts;
      identical = identical && r->texts == reference;
      results[mode] = std::move(*r);
      const RunResult& x = results[mode];
      const double pages_s = o.pages / x.seconds;
      const double base = o.pages / results[Mode::kOneAtATime].seconds;
      std::printf("%-8d %-18s %9.3f %10.1f %8.2fx %10lu %11ld\n", clients, Name(mode), pages_s,
                  x.tokens / x.seconds, pages_s / base, x.largest_step, x.over_need);
    }
    std::printf("%-8d (c)/(b) %.2fx\n", clients,
                results[Mode::kStatic].seconds / results[Mode::kPipeline].seconds);
  }
  std::printf("outputs identical across modes and client counts: %s\n", identical ? "yes" : "NO");
  std::printf("peak RSS: %.1f MiB\n", PeakRssBytes() / 1048576.0);
  return identical ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fputs(
        "usage: pipeline_bench --model DIR [--pages N] [--clients 1,4,8] [--min-tokens N] [--max-tokens N]\n"
        "                      [--image WxH] [--kv-fraction F] [--threads N] [--seed S]\n",
        stderr);
    return 64;
  }
  return Run(o);
}
