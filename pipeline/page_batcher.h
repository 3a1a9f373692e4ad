// PageBatcher: the one thread that runs the model. Workers of every job hand it pages (preprocessed
// pixels); it takes the waiting pages — from any job, so several clients' pages share one batched
// decode — up to max_batch and the KV capacity, encodes each page's image, splices it into the MinerU
// prompt, generates for the whole batch at once and hands each page its decoded text.
// Design note: batching is "whatever is waiting when the model is free" (no timers): a lone page runs
// at once, and pages that arrive while a batch runs form the next one. A page's worst-case KV need
// (prompt + image tokens + max_new_tokens) is known before it runs, so a batch never outgrows the KV
// capacity. Cancelled pages and pages past their deadline are answered before the batch starts; a
// running batch is not interrupted (cancel takes effect within a batch's time). A batch that fails as a
// whole is retried page by page, so one bad page never fails its neighbours.
// Lock order: mu_ is a leaf; the model runs with it released.
#pragma once

#include <ATen/ATen.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "common/watchdog.h"
#include "engine/mineru2_model.h"
#include "engine/tokenizer.h"

namespace mineru::pipeline {

struct PageBatcherOptions {
  engine::Mineru2Model* model = nullptr;         // not owned; used only on the batcher's thread
  const engine::Tokenizer* tokenizer = nullptr;  // not owned
  std::vector<int64_t> prompt_tokens;            // the MinerU prompt with one image token
  int64_t max_batch = 16;
  int64_t max_new_tokens = 16384;
  int64_t no_repeat_ngram_size = 100;
  std::vector<int64_t> eos_token_ids;
  int64_t prefill_chunk_tokens = 2048;
  int64_t kv_capacity_tokens = 0;  // KV tokens for all pages of a batch together
  // Run on the batcher's thread after RequestIdleWork() while no page waits (idle demotion of weights:
  // device copies stay off the event loop and never overlap a batch).
  std::function<void()> idle_work;
  // The batcher's thread joins it as "model thread", with a deadline for each image it encodes and
  // each prefill and decode step, in proportion to their size; idle while no page waits. May be null.
  Watchdog* watchdog = nullptr;
};

struct PageWork {
  at::Tensor pixels;  // [crops, 3, S, S] float
  int64_t image_width = 0;
  int64_t image_height = 0;
  const std::atomic<bool>* cancel = nullptr;  // may be null
  Deadline deadline;
};

struct PageBatcherStats {
  uint64_t batches = 0;
  uint64_t pages = 0;
  uint64_t largest_batch = 0;
  uint64_t tokens_generated = 0;
  uint64_t pages_waiting = 0;
};

// The model's text for generated ids, special tokens kept. Ids the tokenizer does not know (a
// checkpoint's vocabulary is padded past the tokenizer's) are left out and counted in `*dropped`.
Result<std::string> DecodeModelText(const engine::Tokenizer& tokenizer, std::span<const int64_t> ids,
                                    int64_t* dropped);

class PageBatcher {
 public:
  explicit PageBatcher(PageBatcherOptions options);
  ~PageBatcher();  // answers pages still waiting with kCancelled and joins the thread
  PageBatcher(const PageBatcher&) = delete;
  PageBatcher& operator=(const PageBatcher&) = delete;

  // The model's raw text for each page, in order. Pages handed over together are eligible for the
  // same batch.
  std::vector<std::future<Result<std::string>>> Submit(std::vector<PageWork> pages);

  // Asks for one run of options.idle_work once no page waits. Never blocks.
  void RequestIdleWork();

  // KV tokens a page of this size needs at most.
  int64_t WorstCaseTokens(int64_t image_width, int64_t image_height) const;
  PageBatcherStats stats() const;

 private:
  struct Pending {
    PageWork work;
    int64_t tokens = 0;
    std::promise<Result<std::string>> result;
  };
  void Run();
  std::vector<Pending> TakeBatch(std::unique_lock<std::mutex>& lock);
  void RunBatch(std::vector<Pending>& batch);
  Result<std::vector<std::string>> Generate(std::vector<Pending>& batch);

  const PageBatcherOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;               // Guarded by mu_
  bool stopping_ = false;                   // Guarded by mu_
  bool idle_work_ = false;                  // Guarded by mu_
  PageBatcherStats stats_;                  // Guarded by mu_
  std::shared_ptr<Watchdog::Party> watch_;  // null without a watchdog; used on the batcher's thread
  std::thread thread_;
};

}  // namespace mineru::pipeline
