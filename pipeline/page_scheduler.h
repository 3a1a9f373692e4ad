// PageScheduler: the one thread that runs the model, and the stages a page goes through on it.
//
//   waiting (fair queue, pixels) -> vision burst -> parked (prompt embeddings in host memory)
//     -> running: prefill in chunks, then decode -> answered (the page's model text)
//
// Every step is one decoder forward holding the next token of every decoding page plus at most one
// prefill chunk, under `step_tokens` rows. Pages join at any step (when a slot and KV pages are free)
// and leave the step they finish; their KV pages go back to the pool at once. KV pages are taken as
// tokens are written, never reserved for a worst case. When the pool runs dry, the most recently
// admitted page is preempted: its KV is swapped to host memory (or dropped, to be recomputed from its
// prompt and the tokens it wrote) and it resumes first among its job's pages, with the same output.
// Between steps, waiting pages are encoded in bursts (crops of several pages through the vision tower
// together, up to `vision_batch_crops`) while fewer pages are parked than could run.
// Waiting pages are taken round robin by user, then by job (fair_queue.h), at most
// `max_pages_per_user` of a user's pages past the queue at once; a page of a user with nothing running
// may preempt the youngest page of the user with the most, so it starts within a step.
// Invariance: a page's tokens do not depend on what else shares a step (the engine's products, norms,
// attention and sampling are per row with a fixed reduction order), on chunking, on the KV page size or
// on preemption. `static_batching` keeps the old batcher's behaviour for comparison: a batch starts
// only when the last one ended, each page reserves its worst case, and all pages prefill before any
// decodes.
// Threads: Submit/CancelTicket/stats from any thread; the model, the KV cache and every Page's tensors
// only on the scheduler's thread. Lock order: mu_ is a leaf; the model runs with it released.
#pragma once

#include <ATen/ATen.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "common/watchdog.h"
#include "engine/mineru2_model.h"
#include "engine/tokenizer.h"
#include "pipeline/page_text.h"
#include "pipeline/rate_window.h"

namespace mineru::pipeline {

struct PageSchedulerOptions {
  engine::Mineru2Model* model = nullptr;         // not owned; used only on the scheduler's thread
  const engine::Tokenizer* tokenizer = nullptr;  // not owned
  std::vector<int64_t> prompt_tokens;            // the MinerU prompt with one image token
  int64_t max_new_tokens = 16384;
  int64_t no_repeat_ngram_size = 100;
  std::vector<int64_t> eos_token_ids;
  int64_t max_running = 16;  // pages prefilling or decoding at once (max_batch)
  int64_t step_tokens = 2064;
  int64_t prefill_chunk_tokens = 2048;
  int64_t vision_batch_crops = 64;
  int64_t max_pages_per_user = 16;  // past the queue (parked or running)
  bool swap = true;                 // preemption swaps KV to host memory when the cache can; else recompute
  bool static_batching = false;
  int compute_threads = 0;  // libtorch intra-op threads on the scheduler's thread; 0: leave as is
  // The scheduler's thread joins it as "model thread", with a deadline for each vision burst and step in
  // proportion to its size; idle while no page is in it. May be null.
  Watchdog* watchdog = nullptr;
  // Run on the scheduler's thread after RequestIdleWork() while no page is in the model (idle
  // demotion of weights: device copies stay off the event loop and never overlap a step).
  std::function<void()> idle_work;
};

struct PageRequest {
  at::Tensor pixels;  // [crops, 3, S, S] float
  int64_t image_width = 0;
  int64_t image_height = 0;
  uint32_t user = 0;
  uint64_t ticket = 0;                        // the Parse() call it belongs to (CancelTicket)
  const std::atomic<bool>* cancel = nullptr;  // may be null; must outlive the page's answer
  Deadline deadline;
  int64_t max_new_tokens = 0;         // 0: the scheduler's
  int64_t no_repeat_ngram_size = -1;  // -1: the scheduler's
  // Each token as the page writes it, in order, once (a page recomputed after a preemption repeats
  // none), on the scheduler's thread: must be quick and must not block. May be empty.
  std::function<void(int64_t)> on_token;
};

struct PipelineStats {
  // Pages per stage now.
  int64_t waiting = 0;
  int64_t parked = 0;
  int64_t prefilling = 0;
  int64_t decoding = 0;
  int64_t preempted = 0;  // parked again after a preemption (swapped or to recompute)
  // KV cache pages now.
  int64_t kv_pages_total = 0;
  int64_t kv_pages_used = 0;
  int64_t kv_pages_swapped = 0;
  // Counters since start.
  uint64_t steps = 0;
  uint64_t vision_bursts = 0;
  uint64_t pages_done = 0;
  uint64_t tokens_generated = 0;
  uint64_t preemptions = 0;
  uint64_t largest_step_pages = 0;
  // Most KV pages held beyond what the running pages' tokens need, one partly filled page each allowed
  // (0 when pages are taken on demand; static batching holds each page's worst case).
  int64_t peak_kv_pages_over_need = 0;
  // The last minute.
  double pages_per_second = 0;
  double tokens_per_second = 0;
  int compute_threads = 0;
};

class PageScheduler {
 public:
  explicit PageScheduler(PageSchedulerOptions options);
  ~PageScheduler();  // answers pages still in it with kCancelled and joins the thread
  PageScheduler(const PageScheduler&) = delete;
  PageScheduler& operator=(const PageScheduler&) = delete;

  // The page's model text, once it is done.
  std::future<Result<PageText>> Submit(PageRequest page);
  // Ends every page of `ticket` now (answered kCancelled, KV freed). Never blocks.
  void CancelTicket(uint64_t ticket);
  // Asks for one run of options.idle_work once no page is in the model. Never blocks.
  void RequestIdleWork();

  PipelineStats stats() const;
  const PageSchedulerOptions& options() const { return options_; }

  struct Page;  // one page on its way through; defined and used in page_scheduler.cc only

 private:
  class Loop;

  void Run();

  const PageSchedulerOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Page>> incoming_;  // Guarded by mu_
  std::set<uint64_t> cancelled_tickets_;         // Guarded by mu_
  bool stopping_ = false;                        // Guarded by mu_
  bool idle_work_ = false;                       // Guarded by mu_
  PipelineStats stats_;                          // Guarded by mu_
  RateWindow page_rate_;                         // Guarded by mu_
  RateWindow token_rate_;                        // Guarded by mu_
  std::thread thread_;
};

}  // namespace mineru::pipeline
