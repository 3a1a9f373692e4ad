#include "pipeline/page_batcher.h"

#include <algorithm>
#include <climits>

#include "common/log.h"
#include "engine/generator.h"
#include "engine/image_merge.h"

namespace mineru::pipeline {
namespace {

using std::chrono::milliseconds;
// The model thread's allowances: generous for the slowest device minerud runs on (a CPU streaming
// weights from disk), so only a thread that stopped moving goes past them. A step gets the floor plus
// a share per row (prompt token or sequence), an image a share per crop.
constexpr milliseconds kStepFloor{60'000};
constexpr milliseconds kPerRow{100};
constexpr milliseconds kPerCrop{30'000};

}  // namespace

Result<std::string> DecodeModelText(const engine::Tokenizer& tokenizer, std::span<const int64_t> ids,
                                    int64_t* dropped) {
  *dropped = 0;
  std::vector<int32_t> known;
  known.reserve(ids.size());
  for (int64_t id : ids) {
    if (id >= 0 && id <= INT32_MAX && tokenizer.TokenPiece(static_cast<int32_t>(id)).has_value()) {
      known.push_back(static_cast<int32_t>(id));
    } else {
      ++*dropped;
    }
  }
  return tokenizer.Decode(known);
}

PageBatcher::PageBatcher(PageBatcherOptions options) : options_(std::move(options)) {
  if (options_.watchdog) watch_ = options_.watchdog->Join("model thread");
  thread_ = std::thread([this] { Run(); });
}

PageBatcher::~PageBatcher() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  for (Pending& p : queue_) p.result.set_value(Status(StatusCode::kCancelled, "minerud is stopping"));
}

int64_t PageBatcher::WorstCaseTokens(int64_t image_width, int64_t image_height) const {
  const auto& mm = *options_.model->config().multimodal;
  const engine::TileGrid grid =
      engine::SelectTileGrid(image_width, image_height, mm.vision.image_size, mm.max_grid_side);
  const int64_t image_tokens =
      engine::MergedImageShape(grid, mm.vision.patches_per_side, mm.anyres_max_tiles).num_tokens;
  // The image token itself is replaced by the image rows.
  return static_cast<int64_t>(options_.prompt_tokens.size()) - 1 + image_tokens + options_.max_new_tokens;
}

std::vector<std::future<Result<std::string>>> PageBatcher::Submit(std::vector<PageWork> pages) {
  std::vector<std::future<Result<std::string>>> futures;
  futures.reserve(pages.size());
  {
    std::lock_guard lock(mu_);
    for (PageWork& w : pages) {
      Pending p;
      p.tokens = WorstCaseTokens(w.image_width, w.image_height);
      p.work = std::move(w);
      futures.push_back(p.result.get_future());
      if (stopping_) {
        p.result.set_value(Status(StatusCode::kCancelled, "minerud is stopping"));
        continue;
      }
      if (p.tokens > options_.kv_capacity_tokens) {
        p.result.set_value(ResourceExhausted(
            "a page of " + std::to_string(p.work.image_width) + "x" + std::to_string(p.work.image_height) +
            " px needs up to " + std::to_string(p.tokens) + " KV tokens, more than the cache holds (" +
            std::to_string(options_.kv_capacity_tokens) + ")"));
        continue;
      }
      queue_.push_back(std::move(p));
    }
    stats_.pages_waiting = queue_.size();
  }
  cv_.notify_one();
  return futures;
}

PageBatcherStats PageBatcher::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void PageBatcher::RequestIdleWork() {
  {
    std::lock_guard lock(mu_);
    idle_work_ = true;
  }
  cv_.notify_one();
}

void PageBatcher::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (watch_) watch_->Idle();
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty() || idle_work_; });
    if (stopping_) return;
    if (queue_.empty()) {
      idle_work_ = false;
      if (watch_) watch_->Expect(kStepFloor);
      lock.unlock();
      if (options_.idle_work) options_.idle_work();
      lock.lock();
      continue;
    }
    std::vector<Pending> batch = TakeBatch(lock);
    stats_.pages_waiting = queue_.size();
    if (batch.empty()) continue;
    lock.unlock();
    RunBatch(batch);
    lock.lock();
  }
}

// Pages in arrival order while the batch and its KV need fit; cancelled or expired pages are answered
// here and never reach the model.
std::vector<PageBatcher::Pending> PageBatcher::TakeBatch(std::unique_lock<std::mutex>&) {
  std::vector<Pending> batch;
  int64_t tokens = 0;
  while (!queue_.empty() && static_cast<int64_t>(batch.size()) < options_.max_batch) {
    Pending& next = queue_.front();
    if (next.work.cancel && next.work.cancel->load(std::memory_order_acquire)) {
      next.result.set_value(Status(StatusCode::kCancelled, "the job was cancelled"));
      queue_.pop_front();
      continue;
    }
    if (next.work.deadline.Expired()) {
      next.result.set_value(DeadlineExceeded("the job's time limit passed before its page ran"));
      queue_.pop_front();
      continue;
    }
    if (!batch.empty() && tokens + next.tokens > options_.kv_capacity_tokens) break;
    tokens += next.tokens;
    batch.push_back(std::move(next));
    queue_.pop_front();
  }
  return batch;
}

void PageBatcher::RunBatch(std::vector<Pending>& batch) {
  Result<std::vector<std::string>> texts = Generate(batch);
  if (!texts.ok() && batch.size() > 1) {
    MINERU_LOG(kWarning) << "a batch of " << batch.size()
                         << " pages failed; running them one by one: " << texts.status().ToString();
    for (Pending& p : batch) {
      std::vector<Pending> one;
      one.push_back(std::move(p));
      RunBatch(one);
    }
    return;
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    if (texts.ok()) {
      batch[i].result.set_value(std::move((*texts)[i]));
    } else {
      batch[i].result.set_value(texts.status());
    }
  }
}

Result<std::vector<std::string>> PageBatcher::Generate(std::vector<Pending>& batch) {
  engine::Mineru2Model& model = *options_.model;
  std::vector<engine::GenerationRequest> requests;
  requests.reserve(batch.size());
  for (Pending& p : batch) {
    if (watch_) watch_->Expect(kStepFloor + kPerCrop * p.work.pixels.size(0));
    MINERU_ASSIGN_OR_RETURN(at::Tensor image,
                            model.EncodeImage(p.work.pixels, p.work.image_width, p.work.image_height));
    p.work.pixels = at::Tensor();  // the features replace the pixels; free them now
    engine::GenerationRequest req;
    MINERU_ASSIGN_OR_RETURN(req.prompt_embeds, model.EmbedPrompt(options_.prompt_tokens, &image));
    req.sampling.max_new_tokens = options_.max_new_tokens;
    req.sampling.no_repeat_ngram_size = options_.no_repeat_ngram_size;
    req.sampling.eos_token_ids = options_.eos_token_ids;
    requests.push_back(std::move(req));
  }
  engine::GenerateOptions go;
  go.prefill_chunk_tokens = options_.prefill_chunk_tokens;
  if (watch_) go.before_forward = [this](int64_t rows) { watch_->Expect(kStepFloor + kPerRow * rows); };
  MINERU_ASSIGN_OR_RETURN(std::vector<engine::GenerationResult> results,
                          engine::Generate(model.decoder(), requests, go));
  std::vector<std::string> texts;
  texts.reserve(results.size());
  uint64_t generated = 0;
  for (const engine::GenerationResult& r : results) {
    int64_t dropped = 0;
    MINERU_ASSIGN_OR_RETURN(std::string text, DecodeModelText(*options_.tokenizer, r.generated, &dropped));
    if (dropped > 0) {
      MINERU_LOG(kWarning) << "the model wrote " << dropped
                           << " token ids the tokenizer does not know; left out";
    }
    texts.push_back(std::move(text));
    generated += r.generated.size();
  }
  std::lock_guard lock(mu_);
  ++stats_.batches;
  stats_.pages += batch.size();
  stats_.largest_batch = std::max<uint64_t>(stats_.largest_batch, batch.size());
  stats_.tokens_generated += generated;
  return texts;
}

}  // namespace mineru::pipeline
