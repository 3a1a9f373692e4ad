// pipeline_bench: what the page scheduler buys over running pages one at a time and over the static
// batcher, side by side in one run on the same pages.
//
// A workload of single-page documents whose output lengths are drawn (fixed seed) between --min-tokens
// and --max-tokens; each page stops at its drawn length (EOS is not honoured, so every mode writes the
// same number of tokens). C clients (1, 4, 8 by default) each submit their pages one after another,
// as a client waiting for its document does. Three modes over one model:
//   (a) one page at a time (max_batch 1): how MinerU's transformers backend works (run once per budget:
//       the client count does not change it);
//   (b) static batching: a batch starts when the last ended, each page reserves its worst-case KV;
//   (c) the pipeline: continuous batching, KV on demand, one prefill chunk per step;
//   and with p in --modes, the ceiling: the pages one at a time writing one token each (the vision
//   encode and prefill that batching does not share where they are bound by compute, as on a CPU).
// Each mode is opened as the daemon opens its model (pipeline/model_runtime.h: the memory plan, the
// residency manager under its budgets, the scheduler's options), with a KV pool of every client's page
// at its worst, at each VRAM budget of --budgets: fractions of the full plan for the largest client
// count (every weight + that KV pool + the largest step's workspace); below 1 some layers stream.
// Prints pages/s and tokens/s of each, the ratios c/a and c/b, the pages a step carried on average
// (tokens per model pass), the most KV pages held beyond what live pages need, preemptions, the device
// tier's peak against its budget, the process's peak RSS, and whether every page's text is the same in
// all modes, client counts and budgets.
//
// usage: pipeline_bench --model DIR [--pages N] [--clients 1,4,8] [--min-tokens 64] [--max-tokens 1024]
//                       [--image WxH] [--budgets 1,0.5] [--modes abcp] [--threads N] [--seed S]
//   DIR: a MinerU 2.0 folder; bench/generated_model writes one of the full size with random weights
#include <ATen/ATen.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "engine/mineru2_model.h"
#include "pipeline/model_runtime.h"
#include "pipeline/page_scheduler.h"
#include "residency/residency_manager.h"

namespace {

using namespace mineru;
using namespace mineru::pipeline;

struct Options {
  std::string model;
  int pages = 16;
  std::vector<int> clients = {1, 4, 8};
  std::vector<double> budgets = {1.0, 0.5};
  std::string modes = "abc";  // and p: the ceiling
  int64_t min_tokens = 64;
  int64_t max_tokens = 1024;
  int64_t width = 400, height = 400;
  int threads = 0;
  uint64_t seed = 42;
};

enum class Mode { kOneAtATime, kStatic, kPipeline };
const char* Name(Mode m) {
  return m == Mode::kOneAtATime ? "(a) one at a time"
         : m == Mode::kStatic   ? "(b) static batch"
                                : "(c) pipeline";
}
char Letter(Mode m) { return m == Mode::kOneAtATime ? 'a' : m == Mode::kStatic ? 'b' : 'c'; }

struct Workload {
  std::vector<at::Tensor> pixels;  // per page
  std::vector<int64_t> lengths;    // tokens each page writes
  int64_t page_tokens = 0;         // one page's KV at its worst: prompt + image + the longest answer
};

struct RunResult {
  double seconds = 0;
  uint64_t tokens = 0;
  int64_t over_need = 0;
  uint64_t largest_step = 0;
  uint64_t steps = 0;  // model passes (decode steps, with or without a prefill chunk)
  uint64_t preemptions = 0;
  uint64_t device_peak = 0;
  uint64_t device_budget = 0;
  std::vector<std::string> texts;
};

template <typename T>
bool ParseList(const char* s, std::vector<T>* out) {
  out->clear();
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) out->push_back(static_cast<T>(std::stod(part)));
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
    } else if (a == "--budgets") {
      if (!ParseList(v, &o->budgets)) return false;
    } else if (a == "--modes")
      o->modes = v;
    else if (a == "--min-tokens")
      o->min_tokens = std::atoll(v);
    else if (a == "--max-tokens")
      o->max_tokens = std::atoll(v);
    else if (a == "--image") {
      if (std::sscanf(v, "%ldx%ld", &o->width, &o->height) != 2) return false;
    } else if (a == "--threads")
      o->threads = std::atoi(v);
    else if (a == "--seed")
      o->seed = std::strtoull(v, nullptr, 10);
    else
      return false;
  }
  const bool budgets_ok =
      std::all_of(o->budgets.begin(), o->budgets.end(), [](double b) { return b > 0 && b <= 1; });
  return !o->model.empty() && o->pages > 0 && o->min_tokens > 0 && o->max_tokens >= o->min_tokens &&
         budgets_ok && !o->modes.empty();
}

uint64_t PeakRssBytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

// The daemon's config for one mode: a KV pool of every running page at its worst; vram_budget 0: the
// plan's own (everything resident).
Config ModeConfig(const Options& o, Mode mode, int clients, const Workload& w, uint64_t vram_budget) {
  Config c;
  c.model_dir = o.model;
  c.max_batch = mode == Mode::kOneAtATime ? 1 : clients;
  c.max_new_tokens = o.max_tokens;
  c.kv_cache_tokens = c.max_batch * w.page_tokens;
  c.batching = mode == Mode::kStatic ? "static" : "continuous";
  c.compute_threads = o.threads;
  c.vram_budget_bytes = vram_budget;
  return c;
}

// One mode with `clients` clients, each submitting its pages one after another, over a freshly opened
// model (the same weights and pages each time).
Result<RunResult> RunMode(const Options& o, const Config& config, int clients, const Workload& w) {
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<ModelRuntime> rt, OpenModelRuntime(config));
  PageSchedulerOptions so = rt->scheduler_options;
  so.eos_token_ids.clear();  // every page writes its drawn length
  auto scheduler = std::make_unique<PageScheduler>(std::move(so));

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
        Result<PageText> text = scheduler->Submit(std::move(req)).get();
        if (!text.ok()) {
          failures[static_cast<size_t>(c)] = text.status();
          return;
        }
        r.texts[p] = std::move(text->text);
      }
    });
  }
  for (auto& t : threads) t.join();
  r.seconds = clock.ElapsedSeconds();
  for (const Status& s : failures) MINERU_RETURN_IF_ERROR(s);
  const PipelineStats st = scheduler->stats();
  scheduler.reset();
  r.tokens = st.tokens_generated;
  r.over_need = st.peak_kv_pages_over_need;
  r.largest_step = st.largest_step_pages;
  r.steps = st.steps;
  r.preemptions = st.preemptions;
  const residency::TierStats gpu = rt->manager->GetStats().tiers[residency::TierIndex(residency::Tier::kGpu)];
  r.device_peak = gpu.peak_bytes;
  r.device_budget = gpu.budget_bytes;
  return r;
}

// The workload: random page pixels and drawn lengths from the seed, sized by the model's preprocessing.
Result<Workload> MakeWorkload(const Options& o) {
  Config probe_config;
  probe_config.model_dir = o.model;
  probe_config.max_batch = 1;
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<ModelRuntime> probe, OpenModelRuntime(probe_config));
  MINERU_ASSIGN_OR_RETURN(const int64_t crops, probe->model->CropsFor(o.width, o.height));
  MINERU_ASSIGN_OR_RETURN(const int64_t image_tokens, probe->model->ImageTokensFor(o.width, o.height));
  Workload w;
  w.page_tokens =
      static_cast<int64_t>(probe->scheduler_options.prompt_tokens.size()) - 1 + image_tokens + o.max_tokens;
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int64_t> length(o.min_tokens, o.max_tokens);
  at::manual_seed(static_cast<uint64_t>(o.seed));
  const int64_t size = probe->model->config().multimodal->vision.image_size;
  for (int p = 0; p < o.pages; ++p) {
    w.pixels.push_back(at::rand({crops, 3, size, size}) * 2 - 1);
    w.lengths.push_back(length(rng));
  }
  std::printf(
      "pipeline_bench: %s, %d pages of %ldx%ld (%ld crops, %ld image tokens), %ld-%ld tokens each "
      "(seed %lu), %s, %d threads\n",
      o.model.c_str(), o.pages, o.width, o.height, crops, image_tokens, o.min_tokens, o.max_tokens, o.seed,
      probe->plan.compute_dtype == at::kBFloat16 ? "bf16" : "f32", probe->scheduler_options.compute_threads);
  return w;
}

// 100 %: every weight, the KV pool of the largest client count's pipeline and its largest workspace.
Result<uint64_t> FullBudget(const Options& o, const Workload& w) {
  const int clients = *std::max_element(o.clients.begin(), o.clients.end());
  Config c = ModeConfig(o, Mode::kPipeline, clients, w, 0);
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<ModelRuntime> rt, OpenModelRuntime(c));
  return rt->plan.gpu_budget_bytes;
}

// Pages' texts in one number, to compare runs of different invocations.
size_t Digest(const std::vector<std::string>& texts) {
  size_t h = 0;
  for (const std::string& t : texts) h = h * 1000003u ^ std::hash<std::string>()(t);
  return h;
}

double MiB(uint64_t b) { return static_cast<double>(b) / 1048576.0; }

int Fail(const Status& s) {
  std::fprintf(stderr, "pipeline_bench: %s\n", s.ToString().c_str());
  return 1;
}

// The part of (a) that batching cannot share on a machine where the vision encode and the prefill are
// bound by compute, as on a CPU: the same pages one at a time, each writing one token. (a)'s time over
// it is the most any batching of decode steps can give here.
Status PrintCeiling(const Options& o, const Workload& w, uint64_t budget, double fraction,
                    const RunResult& one_at_a_time) {
  Workload first_token = w;
  std::fill(first_token.lengths.begin(), first_token.lengths.end(), 1);
  MINERU_ASSIGN_OR_RETURN(
      RunResult p, RunMode(o, ModeConfig(o, Mode::kOneAtATime, 1, first_token, budget), 1, first_token));
  std::printf(
      "%5.0f%%  vision + prefill alone (one token per page): %.1f s of (a)'s %.1f s; batching decode "
      "cannot pass %.2fx (a) here\n",
      fraction * 100, p.seconds, one_at_a_time.seconds, one_at_a_time.seconds / p.seconds);
  return Status::Ok();
}

int Run(const Options& o) {
  Result<Workload> w = MakeWorkload(o);
  if (!w.ok()) return Fail(w.status());
  Result<uint64_t> full = FullBudget(o, *w);
  if (!full.ok()) return Fail(full.status());
  std::printf(
      "100 %% budget: %.0f MiB (every weight, the KV pool for %d pages of %ld tokens, a step's "
      "workspace)\n",
      MiB(*full), *std::max_element(o.clients.begin(), o.clients.end()), w->page_tokens);
  // "per step": tokens sampled per model pass, the pages a decode step carried on average.
  std::printf("%-7s %-8s %-18s %9s %10s %9s %8s %9s %10s %8s %16s\n", "budget", "clients", "mode", "pages/s",
              "tokens/s", "vs (a)", "largest", "per step", "KV>need", "preempt", "device peak MiB");
  bool identical = true, within_budget = true;
  std::vector<std::string> reference;
  for (double fraction : o.budgets) {
    const uint64_t budget = static_cast<uint64_t>(fraction * static_cast<double>(*full));
    std::optional<RunResult> one_at_a_time;  // (a) runs one page at a time whatever the client count
    for (int clients : o.clients) {
      std::map<Mode, RunResult> results;
      for (Mode mode : {Mode::kOneAtATime, Mode::kStatic, Mode::kPipeline}) {
        if (o.modes.find(Letter(mode)) == std::string::npos) continue;
        Result<RunResult> r = mode == Mode::kOneAtATime && one_at_a_time
                                  ? Result<RunResult>(*one_at_a_time)
                                  : RunMode(o, ModeConfig(o, mode, clients, *w, budget), clients, *w);
        if (!r.ok()) return Fail(r.status().WithContext(Name(mode)));
        if (mode == Mode::kOneAtATime) one_at_a_time = *r;
        if (reference.empty()) reference = r->texts;
        identical = identical && r->texts == reference;
        within_budget = within_budget && r->device_peak <= r->device_budget;
        const RunResult& x = results[mode] = std::move(*r);
        const double pages_s = o.pages / x.seconds;
        const auto a = results.find(Mode::kOneAtATime);
        std::printf("%5.0f%%  %-8d %-18s %9.3f %10.1f ", fraction * 100, clients, Name(mode), pages_s,
                    x.tokens / x.seconds);
        if (a != results.end()) {
          std::printf("%8.2fx ", a->second.seconds / x.seconds);
        } else {
          std::printf("%9s ", "-");
        }
        std::printf("%8lu %9.2f %10ld %8lu %7.0f / %.0f\n", x.largest_step,
                    x.steps > 0 ? static_cast<double>(x.tokens) / static_cast<double>(x.steps) : 0.0,
                    x.over_need, x.preemptions, MiB(x.device_peak), MiB(x.device_budget));
        std::fflush(stdout);
      }
      const auto b = results.find(Mode::kStatic), c = results.find(Mode::kPipeline);
      if (b != results.end() && c != results.end()) {
        std::printf("%5.0f%%  %-8d (c)/(b) %.2fx\n", fraction * 100, clients,
                    b->second.seconds / c->second.seconds);
      }
    }
    if (o.modes.find('p') != std::string::npos && one_at_a_time) {
      if (Status s = PrintCeiling(o, *w, budget, fraction, *one_at_a_time); !s.ok()) return Fail(s);
    }
  }
  std::printf("outputs identical across modes, client counts and budgets: %s (digest %016zx)\n",
              identical ? "yes" : "NO", Digest(reference));
  std::printf("device tier within its budget in every run: %s\n", within_budget ? "yes" : "NO");
  std::printf("peak RSS: %.1f MiB\n", MiB(PeakRssBytes()));
  return identical && within_budget ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fputs(
        "usage: pipeline_bench --model DIR [--pages N] [--clients 1,4,8] [--min-tokens N] [--max-tokens N]\n"
        "                      [--image WxH] [--budgets 1,0.5] [--modes abcp] [--threads N] [--seed S]\n",
        stderr);
    return 64;
  }
  return Run(o);
}
