#include "pipeline/page_scheduler.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <map>

#include "common/log.h"
#include "engine/sampler.h"
#include "engine/torch_status.h"
#include "pipeline/fair_queue.h"
#include "pipeline/model_text.h"

namespace mineru::pipeline {

struct PageScheduler::Page {
  PageRequest req;
  std::promise<Result<PageText>> result;
  uint64_t arrival = 0;
  // Parked: the spliced prompt, in host memory until the page runs, and the rows still to prefill:
  // the prompt, or after a preemption that dropped the KV, the prompt and every written token but the
  // last (recomputed).
  at::Tensor prompt_rows;
  at::Tensor prefill_rows;
  int64_t fed = 0;  // rows of prefill_rows in the KV cache
  bool preempted = false;
  // Running.
  uint64_t admitted = 0;  // admission order: the largest is the youngest
  engine::KvSequence kv;
  std::unique_ptr<engine::GreedySampler> sampler;
  int64_t next_token = -1;  // chosen, not yet in the KV cache
  bool finished = false;    // static batching: done, keeps its KV until the batch ends
  Status failure;           // set when the page failed in a step: it leaves with this answer

  bool decoding() const { return fed == prefill_rows.size(0); }
};

namespace {

using PagePtr = std::unique_ptr<PageScheduler::Page>;
using std::chrono::milliseconds;

// The model thread's watchdog allowances: generous for the slowest device minerud runs on (a CPU
// streaming weights from disk), so only a thread that stopped moving goes past them. A step gets the
// floor plus a share per row, a vision burst a share per crop.
constexpr milliseconds kStepFloor{60'000};
constexpr milliseconds kPerRow{100};
constexpr milliseconds kPerCrop{30'000};

Status Cancelled(const PageRequest& r) {
  if (r.cancel != nullptr && r.cancel->load(std::memory_order_acquire)) {
    return Status(StatusCode::kCancelled, "the job was cancelled");
  }
  if (r.deadline.Expired()) return DeadlineExceeded("the job's time limit passed while its page waited");
  return Status::Ok();
}

// A logits row -> the page's next token (the row is copied: the ban writes into it).
int64_t Choose(const at::Tensor& row, engine::GreedySampler& sampler) {
  at::Tensor scores = row.contiguous().clone();
  return sampler.Next(std::span<float>(scores.data_ptr<float>(), scores.numel()));
}

}  // namespace

// Everything the scheduler's thread owns. One instance lives for the thread's life.
class PageScheduler::Loop {
 public:
  explicit Loop(PageScheduler& s) : s_(s), o_(s.options_), model_(*o_.model), cache_(model_.kv_cache()) {
    if (o_.watchdog) watch_ = o_.watchdog->Join("model thread");
  }

  void Run();

 private:
  int64_t MaxNewTokens(const PageRequest& r) const {
    return r.max_new_tokens > 0 ? r.max_new_tokens : o_.max_new_tokens;
  }
  bool Busy() const { return !waiting_.empty() || !parked_.empty() || !running_.empty(); }
  int64_t InModel(uint32_t user) const {
    auto it = in_model_.find(user);
    return it == in_model_.end() ? 0 : it->second;
  }

  void Answer(PagePtr page, Result<PageText> result);
  void Leave(Page& page);  // out of parked/running: its user's count and its KV
  void DropEnded(const std::set<uint64_t>& tickets);
  void PreemptForFairness();
  void VisionBurst();
  Status Park(Page& page, const at::Tensor& image);
  void Admit();
  bool AdmitOne(Page& page);
  void Preempt(Page& page);
  void Step();
  void ReserveStep(std::vector<Page*>& step, std::vector<int64_t>& rows);
  Status RunStep(const std::vector<Page*>& step, const std::vector<int64_t>& rows);
  void TrackKvNeed();
  void Finish(PagePtr page);
  void EndStaticBatch();
  void Publish();

  PageScheduler& s_;
  const PageSchedulerOptions& o_;
  engine::Mineru2Model& model_;
  engine::PagedKvCache& cache_;
  FairQueue<PagePtr> waiting_;
  std::vector<PagePtr> parked_;
  std::vector<PagePtr> running_;          // admission order
  std::map<uint32_t, int64_t> in_model_;  // parked + running pages per user
  uint64_t next_admission_ = 0;
  std::shared_ptr<Watchdog::Party> watch_;  // null without a watchdog
  // Stats kept on this thread, published after each pass.
  uint64_t steps_ = 0, vision_bursts_ = 0, preemptions_ = 0, largest_step_ = 0;
  int64_t peak_over_need_ = 0;
  uint64_t pages_done_ = 0, tokens_ = 0;
};

PageScheduler::PageScheduler(PageSchedulerOptions options) : options_(std::move(options)) {
  thread_ = std::thread([this] { Run(); });
}

PageScheduler::~PageScheduler() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  for (auto& p : incoming_) p->result.set_value(Status(StatusCode::kCancelled, "minerud is stopping"));
}

std::future<Result<PageText>> PageScheduler::Submit(PageRequest request) {
  auto page = std::make_unique<Page>();
  page->req = std::move(request);
  std::future<Result<PageText>> answer = page->result.get_future();
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      page->result.set_value(Status(StatusCode::kCancelled, "minerud is stopping"));
      return answer;
    }
    incoming_.push_back(std::move(page));
    ++stats_.waiting;
  }
  cv_.notify_one();
  return answer;
}

void PageScheduler::CancelTicket(uint64_t ticket) {
  {
    std::lock_guard lock(mu_);
    cancelled_tickets_.insert(ticket);
  }
  cv_.notify_one();
}

void PageScheduler::RequestIdleWork() {
  {
    std::lock_guard lock(mu_);
    idle_work_ = true;
  }
  cv_.notify_one();
}

PipelineStats PageScheduler::stats() const {
  std::lock_guard lock(mu_);
  PipelineStats out = stats_;
  out.pages_per_second = page_rate_.PerSecond();
  out.tokens_per_second = token_rate_.PerSecond();
  return out;
}

void PageScheduler::Run() {
  if (options_.compute_threads > 0) at::set_num_threads(options_.compute_threads);
  {
    std::lock_guard lock(mu_);
    stats_.compute_threads = at::get_num_threads();
  }
  Loop(*this).Run();
}

void PageScheduler::Loop::Run() {
  uint64_t arrivals = 0;
  for (;;) {
    std::vector<PagePtr> incoming;
    std::set<uint64_t> tickets;
    bool idle_work = false;
    if (watch_ && !Busy()) watch_->Idle();
    {
      std::unique_lock lock(s_.mu_);
      s_.cv_.wait(lock, [&] {
        return s_.stopping_ || !s_.incoming_.empty() || !s_.cancelled_tickets_.empty() || s_.idle_work_ ||
               Busy();
      });
      if (s_.stopping_) break;
      incoming.swap(s_.incoming_);
      tickets.swap(s_.cancelled_tickets_);
      idle_work = s_.idle_work_;
      s_.idle_work_ = false;
    }
    for (PagePtr& p : incoming) {
      p->arrival = ++arrivals;
      const uint32_t user = p->req.user;
      const uint64_t ticket = p->req.ticket;
      waiting_.Push(user, ticket, std::move(p));
    }
    DropEnded(tickets);
    if (!Busy()) {
      if (idle_work && o_.idle_work) {
        if (watch_) watch_->Expect(kStepFloor);
        o_.idle_work();
      }
      Publish();
      continue;
    }
    if (idle_work) {
      std::lock_guard lock(s_.mu_);
      s_.idle_work_ = true;  // again once the model is idle
    }
    PreemptForFairness();
    VisionBurst();
    Admit();
    Step();
    Publish();
  }
  const Status stopping(StatusCode::kCancelled, "minerud is stopping");
  for (PagePtr& p : waiting_.RemoveIf([](const PagePtr&) { return true; })) Answer(std::move(p), stopping);
  for (PagePtr& p : parked_) Answer(std::move(p), stopping);
  for (PagePtr& p : running_) Answer(std::move(p), stopping);
  parked_.clear();
  running_.clear();
}

void PageScheduler::Loop::Answer(PagePtr page, Result<PageText> result) {
  cache_.Free(page->kv);
  page->result.set_value(std::move(result));
}

void PageScheduler::Loop::Leave(Page& page) {
  if (--in_model_[page.req.user] == 0) in_model_.erase(page.req.user);
  cache_.Free(page.kv);
}

// Pages of cancelled tickets, cancelled jobs and jobs past their deadline leave at once.
void PageScheduler::Loop::DropEnded(const std::set<uint64_t>& tickets) {
  auto ended = [&](const Page& p) -> Status {
    if (tickets.contains(p.req.ticket)) return Status(StatusCode::kCancelled, "the job was cancelled");
    return Cancelled(p.req);
  };
  for (PagePtr& p : waiting_.RemoveIf([&](const PagePtr& p) { return !ended(*p).ok(); })) {
    Status why = ended(*p);
    Answer(std::move(p), why);
  }
  for (auto* list : {&parked_, &running_}) {
    for (auto it = list->begin(); it != list->end();) {
      Status why = ended(**it);
      if (why.ok()) {
        ++it;
        continue;
      }
      Leave(**it);
      Answer(std::move(*it), why);
      it = list->erase(it);
    }
  }
}

// A user with pages waiting and none in the model, while every slot is taken: the youngest page of the
// user with the most pages in the model (two or more) goes back to the head of its job's queue (its
// KV swapped or dropped, its prompt kept), so the newcomer is encoded and admitted at once.
void PageScheduler::Loop::PreemptForFairness() {
  if (o_.static_batching || waiting_.empty()) return;
  if (static_cast<int64_t>(running_.size() + parked_.size()) < o_.max_running) return;
  if (!waiting_.AnyUser([&](uint32_t user) { return InModel(user) == 0; })) return;
  uint32_t heavy = 0;
  int64_t most = 1;
  for (const auto& [user, n] : in_model_) {
    if (n > most) {
      most = n;
      heavy = user;
    }
  }
  if (most < 2) return;
  // Its youngest page: a parked one first (nothing to undo), else the last admitted running one.
  auto back_to_queue = [&](std::vector<PagePtr>& list, auto it) {
    PagePtr page = std::move(*it);
    list.erase(std::next(it).base());
    if (--in_model_[heavy] == 0) in_model_.erase(heavy);
    const uint64_t ticket = page->req.ticket;
    waiting_.PushFront(heavy, ticket, std::move(page));
  };
  for (auto it = parked_.rbegin(); it != parked_.rend(); ++it) {
    if ((*it)->req.user == heavy) return back_to_queue(parked_, it);
  }
  for (auto it = running_.rbegin(); it != running_.rend(); ++it) {
    if ((*it)->req.user != heavy) continue;
    Preempt(**it);
    return back_to_queue(running_, it);
  }
}

// Moves waiting pages into the model while fewer are parked and running than slots: pages already
// encoded (sent back by fairness) park at once; the others are encoded together in one burst of up to
// vision_batch_crops crops.
void PageScheduler::Loop::VisionBurst() {
  if (o_.static_batching && !running_.empty()) return;
  int64_t room = o_.max_running - static_cast<int64_t>(running_.size() + parked_.size());
  std::vector<PagePtr> burst;
  std::vector<engine::Mineru2Model::PageImage> images;
  int64_t crops = 0;
  while (room > 0) {
    std::optional<PagePtr> next =
        waiting_.Pop([&](uint32_t user) { return InModel(user) < o_.max_pages_per_user; });
    if (!next) break;
    PagePtr page = std::move(*next);
    ++in_model_[page->req.user];
    --room;
    if (page->prompt_rows.defined()) {
      parked_.push_back(std::move(page));
      continue;
    }
    const int64_t n = page->req.pixels.size(0);
    if (!burst.empty() && crops + n > o_.vision_batch_crops) {
      if (--in_model_[page->req.user] == 0) in_model_.erase(page->req.user);
      const uint32_t user = page->req.user;
      const uint64_t ticket = page->req.ticket;
      waiting_.PushFront(user, ticket, std::move(page));
      break;
    }
    crops += n;
    images.push_back({page->req.pixels, page->req.image_width, page->req.image_height});
    burst.push_back(std::move(page));
  }
  if (burst.empty()) return;
  ++vision_bursts_;
  if (watch_) watch_->Expect(kStepFloor + kPerCrop * crops);
  Result<std::vector<at::Tensor>> features = model_.EncodeImages(images);
  if (!features.ok() && burst.size() > 1) {
    MINERU_LOG(kWarning) << "a vision burst of " << burst.size()
                         << " pages failed; encoding them one by one: " << features.status().ToString();
  }
  for (size_t i = 0; i < burst.size(); ++i) {
    Page& page = *burst[i];
    Result<at::Tensor> image =
        features.ok()
            ? Result<at::Tensor>((*features)[i])
            : (burst.size() == 1
                   ? Result<at::Tensor>(features.status())
                   : model_.EncodeImage(page.req.pixels, page.req.image_width, page.req.image_height));
    Status parked = image.ok() ? Park(page, *image) : image.status();
    if (!parked.ok()) {
      Leave(page);
      Answer(std::move(burst[i]), parked);
      continue;
    }
    parked_.push_back(std::move(burst[i]));
  }
}

// The page's prompt with its image spliced in, kept in host memory (pinned when the model is on a GPU)
// until it runs; the pixels go.
Status PageScheduler::Loop::Park(Page& page, const at::Tensor& image) {
  MINERU_ASSIGN_OR_RETURN(at::Tensor embeds, model_.EmbedPrompt(o_.prompt_tokens, &image));
  MINERU_ASSIGN_OR_RETURN(page.prompt_rows, engine::CatchTorch("parking a page", [&]() -> Result<at::Tensor> {
                            if (embeds.is_cpu()) return embeds;
                            at::Tensor host = at::empty(
                                embeds.sizes(), embeds.options().device(at::kCPU).pinned_memory(true));
                            host.copy_(embeds);
                            return host;
                          }));
  page.prefill_rows = page.prompt_rows;
  page.req.pixels = at::Tensor();
  engine::SamplingOptions so;
  so.max_new_tokens = MaxNewTokens(page.req);
  so.no_repeat_ngram_size =
      page.req.no_repeat_ngram_size >= 0 ? page.req.no_repeat_ngram_size : o_.no_repeat_ngram_size;
  so.eos_token_ids = o_.eos_token_ids;
  page.sampler = std::make_unique<engine::GreedySampler>(std::move(so));
  return Status::Ok();
}

// Parked pages join the running ones while slots and KV pages allow: the user with the fewest pages
// running first, then preempted pages, then by arrival.
void PageScheduler::Loop::Admit() {
  if (o_.static_batching && !running_.empty()) return;
  while (static_cast<int64_t>(running_.size()) < o_.max_running && !parked_.empty()) {
    std::map<uint32_t, int64_t> running_by_user;
    for (const PagePtr& p : running_) ++running_by_user[p->req.user];
    auto key = [&](const PagePtr& p) {
      return std::make_tuple(running_by_user[p->req.user], !p->preempted, p->arrival);
    };
    auto best = std::min_element(parked_.begin(), parked_.end(),
                                 [&](const PagePtr& a, const PagePtr& b) { return key(a) < key(b); });
    if (!AdmitOne(**best)) return;
    running_.push_back(std::move(*best));
    parked_.erase(best);
  }
}

bool PageScheduler::Loop::AdmitOne(Page& page) {
  const int64_t ps = cache_.options().page_size_tokens;
  if (o_.static_batching) {
    // The old batcher: each page holds its worst case for the whole batch.
    const int64_t worst = page.prompt_rows.size(0) + MaxNewTokens(page.req);
    if (!cache_.Reserve(page.kv, worst).ok()) return false;
  } else {
    // Room for what it writes first (its first chunk, or its swapped pages and a token) and one more
    // page for each running page, so admitting it does not preempt at once. A lone page always runs.
    const int64_t first = page.kv.swapped() ? page.kv.length() + 1
                                            : std::min(o_.prefill_chunk_tokens, page.prefill_rows.size(0));
    const int64_t headroom =
        engine::PagedKvCache::PagesFor(first, ps) + static_cast<int64_t>(running_.size());
    if (!running_.empty() && cache_.free_pages() < headroom) return false;
    if (page.kv.swapped() && !cache_.SwapIn(page.kv).ok()) return false;
  }
  page.admitted = ++next_admission_;
  return true;
}

// Takes the page's KV out of the pool: to host memory when the cache can swap, else dropped, to be
// recomputed from its prompt and the tokens it wrote.
void PageScheduler::Loop::Preempt(Page& page) {
  ++preemptions_;
  page.preempted = true;
  if (o_.swap && cache_.SwapOut(page.kv).ok()) return;
  cache_.Free(page.kv);
  page.fed = 0;
  page.prefill_rows = page.prompt_rows;
  const std::vector<int64_t>& written = page.sampler->generated();
  if (written.size() < 2) return;
  // Every written token but the last (the next input) is prefilled again after the prompt.
  std::vector<int64_t> replay(written.begin(), written.end() - 1);
  Result<at::Tensor> rows = model_.decoder().Embed(replay);
  Result<at::Tensor> joined =
      rows.ok()
          ? engine::CatchTorch("replaying a page",
                               [&]() -> Result<at::Tensor> {
                                 return at::cat({page.prompt_rows, rows->to(page.prompt_rows.device(),
                                                                            page.prompt_rows.scalar_type())});
                               })
          : Result<at::Tensor>(rows.status());
  if (joined.ok()) {
    page.prefill_rows = std::move(*joined);
  } else {
    page.failure = joined.status();
  }
}

void PageScheduler::Loop::Step() {
  if (running_.empty()) return;
  std::vector<Page*> step;
  std::vector<int64_t> rows;
  // Every decoding page's next token; in static batching, none until every page has prefilled.
  bool all_prefilled = true;
  for (const PagePtr& p : running_) all_prefilled = all_prefilled && (p->decoding() || p->finished);
  for (const PagePtr& p : running_) {
    if (p->finished || !p->decoding()) continue;
    if (o_.static_batching && !all_prefilled) break;
    step.push_back(p.get());
    rows.push_back(1);
  }
  // At most one prefill chunk: the oldest admitted page still prefilling.
  const int64_t room = o_.step_tokens - static_cast<int64_t>(step.size());
  for (const PagePtr& p : running_) {
    if (p->finished || p->decoding() || room < 1) continue;
    step.push_back(p.get());
    rows.push_back(std::min({o_.prefill_chunk_tokens, room, p->prefill_rows.size(0) - p->fed}));
    break;
  }
  ReserveStep(step, rows);
  if (step.empty()) return;
  Status ran = RunStep(step, rows);
  if (!ran.ok() && step.size() > 1) {
    // A step that failed as a whole: each of its pages alone, so one bad page never fails the others.
    MINERU_LOG(kWarning) << "a step of " << step.size()
                         << " pages failed; running them one by one: " << ran.ToString();
    for (size_t i = 0; i < step.size(); ++i) {
      Status one = RunStep({step[i]}, {rows[i]});
      if (!one.ok()) step[i]->failure = one;
    }
  } else if (!ran.ok()) {
    step[0]->failure = ran;
  }
  // Pages that failed or ended leave the step they end (continuous) or with the last of the batch
  // (static, where a page that ended keeps its KV until then).
  for (auto it = running_.begin(); it != running_.end();) {
    Page& p = **it;
    if (!p.failure.ok()) {
      Leave(p);
      Status why = p.failure;
      Answer(std::move(*it), why);
      it = running_.erase(it);
      continue;
    }
    const bool ended = p.decoding() && p.sampler->done();
    if (!ended || p.finished) {
      ++it;
      continue;
    }
    if (o_.static_batching) {
      p.finished = true;
      ++it;
      continue;
    }
    Leave(p);
    Finish(std::move(*it));
    it = running_.erase(it);
  }
  if (o_.static_batching) EndStaticBatch();
}

// KV pages for every row of the step, taken now. When the pool runs dry the youngest running page is
// preempted (and dropped from the step) until the rest fit; the oldest page always fits alone (the
// plan sizes the pool for one page's worst case).
void PageScheduler::Loop::ReserveStep(std::vector<Page*>& step, std::vector<int64_t>& rows) {
  for (size_t i = 0; i < step.size();) {
    Page& p = *step[i];
    Status got = cache_.Reserve(p.kv, p.kv.length() + rows[i]);
    if (got.ok()) {
      ++i;
      continue;
    }
    if (got.code() != StatusCode::kResourceExhausted || running_.size() < 2) {
      p.failure = got;
      step.erase(step.begin() + static_cast<std::ptrdiff_t>(i));
      rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    // The youngest running page makes room; if it is in the step, it leaves it.
    PagePtr young = std::move(running_.back());
    running_.pop_back();
    auto at = std::find(step.begin(), step.end(), young.get());
    if (at != step.end()) {
      const auto k = at - step.begin();
      step.erase(at);
      rows.erase(rows.begin() + k);
      if (static_cast<size_t>(k) < i) --i;
    }
    Preempt(*young);
    parked_.push_back(std::move(young));
  }
  for (Page* p : step) p->preempted = false;
}

// One decoder forward over the step; each page then takes its token (a page whose prefill ended takes
// its first, unless it is replaying tokens it had written before a preemption).
Status PageScheduler::Loop::RunStep(const std::vector<Page*>& step, const std::vector<int64_t>& rows) {
  int64_t total = 0;
  std::vector<int64_t> tokens;
  for (size_t i = 0; i < step.size(); ++i) {
    total += rows[i];
    if (step[i]->decoding()) tokens.push_back(step[i]->next_token);
  }
  if (watch_) watch_->Expect(kStepFloor + kPerRow * total);
  at::Tensor next;
  if (!tokens.empty()) {
    MINERU_ASSIGN_OR_RETURN(next, model_.decoder().Embed(tokens));
  }
  std::vector<engine::DecoderInput> inputs;
  int64_t k = 0;
  for (size_t i = 0; i < step.size(); ++i) {
    Page& p = *step[i];
    at::Tensor embeds = p.decoding() ? next.narrow(0, k++, 1) : p.prefill_rows.narrow(0, p.fed, rows[i]);
    inputs.push_back({&p.kv, embeds, false});
  }
  MINERU_ASSIGN_OR_RETURN(at::Tensor logits, model_.decoder().Forward(inputs));
  ++steps_;
  largest_step_ = std::max<uint64_t>(largest_step_, step.size());
  TrackKvNeed();
  return engine::CatchTorch("sampling", [&]() -> Status {
    for (size_t i = 0; i < step.size(); ++i) {
      Page& p = *step[i];
      if (!p.decoding()) {
        p.fed += rows[i];
        // A replayed page already holds its next token.
        if (!p.decoding() || !p.sampler->generated().empty()) continue;
      }
      p.next_token = Choose(logits[static_cast<int64_t>(i)], *p.sampler);
      ++tokens_;
      if (p.req.on_token) p.req.on_token(p.next_token);
    }
    return Status::Ok();
  });
}

// KV pages held beyond what the running pages' tokens fill, one partly filled page each allowed.
void PageScheduler::Loop::TrackKvNeed() {
  const int64_t ps = cache_.options().page_size_tokens;
  int64_t held = 0, need = 0;
  for (const PagePtr& p : running_) {
    if (p->kv.swapped()) continue;
    held += static_cast<int64_t>(p->kv.pages().size());
    need += engine::PagedKvCache::PagesFor(p->kv.length(), ps) + 1;
  }
  peak_over_need_ = std::max(peak_over_need_, held - need);
}

void PageScheduler::Loop::Finish(PagePtr page) {
  ++pages_done_;
  int64_t dropped = 0;
  Result<std::string> text = DecodeModelText(*o_.tokenizer, page->sampler->generated(), &dropped);
  if (dropped > 0) {
    MINERU_LOG(kWarning) << "the model wrote " << dropped
                         << " token ids the tokenizer does not know; left out";
  }
  if (!text.ok()) return Answer(std::move(page), text.status());
  const bool at_limit = !page->sampler->stopped_at_eos();
  Answer(std::move(page), PageText{std::move(*text), at_limit});
}

void PageScheduler::Loop::EndStaticBatch() {
  for (const PagePtr& p : running_) {
    if (!p->finished) return;
  }
  for (PagePtr& p : running_) {
    Leave(*p);
    Finish(std::move(p));
  }
  running_.clear();
}

void PageScheduler::Loop::Publish() {
  const int64_t swapped =
      std::count_if(parked_.begin(), parked_.end(), [](const PagePtr& p) { return p->kv.swapped(); });
  std::lock_guard lock(s_.mu_);
  PipelineStats& st = s_.stats_;
  st.waiting = static_cast<int64_t>(waiting_.size() + s_.incoming_.size());
  st.parked = static_cast<int64_t>(parked_.size());
  st.prefilling =
      std::count_if(running_.begin(), running_.end(), [](const PagePtr& p) { return !p->decoding(); });
  st.decoding = static_cast<int64_t>(running_.size()) - st.prefilling;
  st.preempted = std::count_if(parked_.begin(), parked_.end(), [](const PagePtr& p) { return p->preempted; });
  st.kv_pages_total = cache_.num_pages();
  st.kv_pages_used = cache_.num_pages() - cache_.free_pages();
  st.kv_pages_swapped = swapped;
  st.steps = steps_;
  st.vision_bursts = vision_bursts_;
  st.preemptions = preemptions_;
  st.largest_step_pages = largest_step_;
  st.peak_kv_pages_over_need = peak_over_need_;
  s_.page_rate_.Add(pages_done_ - st.pages_done);
  s_.token_rate_.Add(tokens_ - st.tokens_generated);
  st.pages_done = pages_done_;
  st.tokens_generated = tokens_;
}

}  // namespace mineru::pipeline
