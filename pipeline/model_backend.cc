#include "pipeline/model_backend.h"

#include <algorithm>
#include <deque>
#include <future>
#include <sstream>

#include "common/log.h"
#include "common/thread_pool.h"
#include "document/model_output_parser.h"
#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "engine/host_allocator.h"
#include "engine/image_preprocess.h"
#include "engine/image_preprocess_png.h"
#include "engine/mineru2_model.h"
#include "engine/tokenizer.h"
#include "engine/torch_status.h"
#include "pipeline/memory_plan.h"
#include "pipeline/model_runtime.h"
#include "pipeline/model_text.h"
#include "pipeline/page_render.h"
#include "pipeline/page_scheduler.h"
#include "residency/residency_manager.h"

namespace mineru::pipeline {

// Threads that decode and preprocess OpenAI clients' page images (each uses every core inside).
constexpr int64_t kPrepareThreads = 2;

struct ModelBackend::State {
  std::unique_ptr<ModelRuntime> rt;
  std::unique_ptr<PageScheduler> scheduler;  // runs on rt's model: destroyed first
  std::atomic<uint64_t> next_ticket{0};      // Parse() calls without a job id
  // GeneratePageText's decoding and preprocessing, for every caller: a job's pages are prepared on
  // its one thread, and HTTP pages so on a few threads, not on as many as there are requests.
  ThreadPool prepare{std::chrono::seconds(60), kPrepareThreads};
};

ModelBackend::ModelBackend(std::unique_ptr<State> state) : state_(std::move(state)) {}

ModelBackend::~ModelBackend() {
  if (state_) state_->scheduler.reset();
}

Result<std::unique_ptr<ModelBackend>> ModelBackend::Load(const Config& config) {
  auto st = std::make_unique<State>();
  MINERU_ASSIGN_OR_RETURN(st->rt, OpenModelRuntime(config));
  const bool on_cpu = st->rt->on_cpu();
  PageSchedulerOptions so = st->rt->scheduler_options;
  so.watchdog = &ProcessWatchdog();
  // On the CPU, freed activation blocks stay in the heap for the next page (host_allocator.h) and go
  // back to the system when the model goes idle.
  if (on_cpu) engine::KeepFreedHostMemoryForReuse();
  so.idle_work = [manager = st->rt->manager.get(), on_cpu] {
    if (!manager->Tick()) return;
    MINERU_LOG(kInfo) << "the model was idle for keep_alive: its weights left the device tier";
    if (on_cpu) engine::TrimHostMemory();
  };
  st->scheduler = std::make_unique<PageScheduler>(std::move(so));
  return std::unique_ptr<ModelBackend>(new ModelBackend(std::move(st)));
}

std::string ModelBackend::Describe() const {
  const State& st = *state_;
  std::ostringstream s;
  s << "MinerU 2.0 from " << st.rt->config.model_dir << " on " << st.rt->device->Describe() << " in "
    << (st.rt->plan.compute_dtype == at::kBFloat16 ? "bf16" : "f32") << " with "
    << st.scheduler->options().compute_threads << " threads: weights "
    << residency::FormatBytes(st.rt->plan.weight_bytes) << ", VRAM budget "
    << residency::FormatBytes(st.rt->manager->budget(residency::Tier::kGpu)) << ", KV for "
    << st.rt->plan.kv_tokens << " tokens (taken as pages are written), up to " << st.rt->config.max_batch
    << " pages per step (" << st.rt->config.batching << " batching)";
  return s.str();
}

namespace {

// A page image preprocessed for the model (resized and cut into crops as MinerU does), as a request
// for the scheduler; the caller fills in whose page it is.
Result<PageRequest> PreparePage(const engine::Mineru2Model& model, const engine::ImageU8View& view) {
  const auto& mm = *model.config().multimodal;
  engine::ImagePreprocessOptions po;
  po.anyres.tile_size = static_cast<int>(mm.vision.image_size);
  po.anyres.max_tiles_per_side = static_cast<int>(mm.max_grid_side);
  MINERU_ASSIGN_OR_RETURN(engine::PreprocessedImage pre, engine::PreprocessImage(view, po));
  PageRequest req;
  MINERU_ASSIGN_OR_RETURN(req.pixels, engine::CatchTorch("page pixels", [&]() -> Result<at::Tensor> {
                            return at::from_blob(pre.pixel_values.data(),
                                                 {pre.num_crops, 3, pre.crop_size, pre.crop_size}, at::kFloat)
                                .clone();
                          }));
  req.image_width = pre.image_width;
  req.image_height = pre.image_height;
  return req;
}

// A page on its way through a job: rendered and handed to the scheduler, or failed to render.
struct InFlight {
  RenderedPage page;
  std::future<Result<PageText>> text;
};

}  // namespace

// Renders the job's pages in order and keeps up to max_pages_per_user of them in the scheduler, so the
// pages of one document (and of every client) share its steps; pages come back in order.
Result<BackendOutput> ModelBackend::Parse(const BackendInput& input, const PageProgressFn& progress,
                                          const CancelFlag& cancel) {
  State& st = *state_;
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<document::PdfDocument> pdf, OpenBackendDocument(input, cancel));
  document::ParsedDocument doc;
  doc.backend = "vlm";
  doc.num_pages = pdf->page_count();
  doc.warnings = pdf->TakeWarnings();
  MINERU_ASSIGN_OR_RETURN(const document::ResolvedPages range,
                          document::ResolvePageRange(input.pages, doc.num_pages));
  const double dpi = static_cast<double>(st.rt->config.render_dpi);
  // Job ids from the daemon; calls without one (tests, benchmarks) count down from the top.
  const uint64_t ticket = input.job_id != 0 ? input.job_id : ~st.next_ticket.fetch_add(1);
  const size_t window = static_cast<size_t>(st.scheduler->options().max_pages_per_user);

  std::deque<InFlight> flight;
  // Answered pages point into `cancel`: none may stay in the scheduler once this returns.
  auto settle = [&] {
    st.scheduler->CancelTicket(ticket);
    for (InFlight& f : flight) {
      if (f.text.valid()) f.text.wait();
    }
  };
  auto render = [&](int i) -> Status {
    InFlight f;
    MINERU_ASSIGN_OR_RETURN(f.page, RenderPageForModel(*pdf, i, dpi));
    if (!f.page.error.empty()) {
      flight.push_back(std::move(f));
      return Status::Ok();
    }
    const document::RgbImage& image = f.page.image;
    const engine::ImageU8View view{image.pixels.data(), image.width, image.height, 3,
                                   static_cast<size_t>(image.width) * 3};
    MINERU_ASSIGN_OR_RETURN(PageRequest req, PreparePage(*st.rt->model, view));
    req.user = input.user;
    req.ticket = ticket;
    req.cancel = &cancel;
    req.deadline = input.deadline;
    f.text = st.scheduler->Submit(std::move(req));
    flight.push_back(std::move(f));
    return Status::Ok();
  };

  int next = range.first;
  int64_t pages_done = 0;
  for (;;) {
    while (next <= range.last && flight.size() < window) {
      Status rendered =
          cancel.load(std::memory_order_acquire)
              ? Status(StatusCode::kCancelled, "the job was cancelled")
              : (input.watch ? (input.watch->Expect(input.page_allowance), Status::Ok()) : Status::Ok());
      if (rendered.ok()) rendered = render(next++);
      if (!rendered.ok()) {
        settle();
        return rendered;
      }
    }
    if (flight.empty()) break;
    InFlight& f = flight.front();
    if (!f.page.error.empty()) {
      document::PageResult page;
      page.page_idx = f.page.page_index;
      page.status = document::PageStatus::kFailed;
      page.error = f.page.error;
      doc.pages.push_back(std::move(page));
    } else {
      if (input.watch) input.watch->Idle();  // the model thread has its own deadline
      Result<PageText> text = f.text.get();
      if (input.watch) input.watch->Expect(input.page_allowance);
      if (!text.ok()) {
        const int failed = f.page.page_index;
        flight.pop_front();
        settle();
        if (cancel.load(std::memory_order_acquire))
          return Status(StatusCode::kCancelled, "the job was cancelled");
        return text.status().WithContext("page " + std::to_string(failed + 1));
      }
      doc.pages.push_back(document::BuildVlmPage(f.page.page_index, f.page.size.width_pt,
                                                 f.page.size.height_pt, std::move(text->text), f.page.image,
                                                 doc));
    }
    flight.pop_front();
    progress(++pages_done, range.count(), MakePageOutput(doc.pages.back(), "vlm"));
  }
  MINERU_ASSIGN_OR_RETURN(document::OutputFiles files, document::WriteOutputs(doc, input.name, pdf.get()));
  return ToBackendOutput(std::move(files), static_cast<int64_t>(doc.pages.size()));
}

// One page image from an OpenAI client: decoded, preprocessed as a rendered page is, and run by the
// same scheduler under its job's ticket (its own when it names none), so it shares steps (and the
// budget) with documents' pages.
Result<PageText> ModelBackend::GeneratePageText(const PageImageRequest& request, const CancelFlag& cancel) {
  State& st = *state_;
  Result<PageRequest> prepared = Internal("the page was not prepared");
  st.prepare.Call([&] {
    Result<engine::ImageU8> image = engine::DecodePngRgb(request.png);
    prepared = image.ok() ? PreparePage(*st.rt->model, image->View()) : Result<PageRequest>(image.status());
  });
  MINERU_ASSIGN_OR_RETURN(PageRequest req, std::move(prepared));
  req.user = request.user;
  req.ticket = request.job != 0 ? request.job : ~st.next_ticket.fetch_add(1);
  req.cancel = &cancel;
  req.deadline = request.deadline;
  req.max_new_tokens = request.max_new_tokens;
  req.no_repeat_ngram_size = request.no_repeat_ngram_size;
  if (!request.on_text) return st.scheduler->Submit(std::move(req)).get();
  // Streamed: the model's thread decodes each token as it is written.
  auto stream = std::make_shared<ModelTextStream>(*st.rt->tokenizer);
  req.on_token = [stream, &on_text = request.on_text](int64_t id) {
    const std::string piece = stream->Push(id);
    if (!piece.empty()) on_text(piece);
  };
  Result<PageText> text = st.scheduler->Submit(std::move(req)).get();
  if (!text.ok()) return text;
  const std::string rest = stream->Finish();
  if (!rest.empty()) request.on_text(rest);
  return text;
}

int64_t ModelBackend::PageTokenLimit() const { return state_->scheduler->options().max_new_tokens; }

BackendStats ModelBackend::Stats() const {
  BackendStats out;
  const residency::Stats st = state_->rt->manager->GetStats();
  for (residency::Tier tier : residency::kAllTiers) {
    const residency::TierStats& t = st.tiers[residency::TierIndex(tier)];
    TierStats row;
    row.tier = std::string(residency::TierName(tier));
    row.budget_bytes = t.budget_bytes;
    row.used_bytes = t.reserved_bytes;
    row.peak_bytes = t.peak_bytes;
    row.units_resident = t.units_resident;
    out.tiers.push_back(row);
  }
  const PipelineStats p = state_->scheduler->stats();
  auto d = [](auto v) { return static_cast<double>(v); };
  out.counters = {
      {"model_bytes_promoted_total", d(st.bytes_promoted)},
      {"model_bytes_demoted_total", d(st.bytes_demoted)},
      {"model_prefetch_hits_total", d(st.prefetch_hits)},
      {"model_prefetch_stalls_total", d(st.prefetch_stalls)},
      {"model_evictions_total", d(st.evictions)},
      {"model_idle_demotions_total", d(st.idle_demotions)},
      {"kv_capacity_tokens", d(state_->rt->plan.kv_tokens)},
      {"kv_pages_total", d(p.kv_pages_total)},
      {"kv_pages_used", d(p.kv_pages_used)},
      {"kv_pages_free", d(p.kv_pages_total - p.kv_pages_used)},
      {"kv_pages_swapped", d(p.kv_pages_swapped)},
      {"kv_pages_peak_over_need", d(p.peak_kv_pages_over_need)},
      {"pipeline_pages_waiting", d(p.waiting)},
      {"pipeline_pages_parked", d(p.parked)},
      {"pipeline_pages_prefilling", d(p.prefilling)},
      {"pipeline_pages_decoding", d(p.decoding)},
      {"pipeline_pages_preempted", d(p.preempted)},
      {"pipeline_steps_total", d(p.steps)},
      {"pipeline_vision_bursts_total", d(p.vision_bursts)},
      {"pipeline_preemptions_total", d(p.preemptions)},
      {"pipeline_largest_step_pages", d(p.largest_step_pages)},
      {"pipeline_pages_total", d(p.pages_done)},
      {"pipeline_tokens_generated_total", d(p.tokens_generated)},
      {"pipeline_pages_per_second", p.pages_per_second},
      {"pipeline_tokens_per_second", p.tokens_per_second},
      {"compute_threads", d(p.compute_threads)},
  };
  return out;
}

Status ModelBackend::Reconfigure(const Config& config) {
  State& st = *state_;
  if (config.vram_budget_bytes == st.rt->config.vram_budget_bytes) return Status::Ok();
  if (config.vram_budget_bytes == 0) {
    MINERU_LOG(kWarning) << "vram_budget = 0 (all free memory) takes effect at restart";
    return Status::Ok();
  }
  MINERU_RETURN_IF_ERROR(SetVramBudget(config.vram_budget_bytes).status().WithContext("vram_budget"));
  st.rt->config.vram_budget_bytes = config.vram_budget_bytes;
  return Status::Ok();
}

Result<uint64_t> ModelBackend::SetVramBudget(uint64_t bytes) {
  State& st = *state_;
  // The KV pool keeps the size it got at start; the budget must hold it, a step and a layer.
  MINERU_RETURN_IF_ERROR(CheckBudget(bytes, st.rt->plan));
  MINERU_RETURN_IF_ERROR(st.rt->manager->SetBudget(residency::Tier::kGpu, bytes));
  MINERU_LOG(kInfo) << "VRAM budget now " << residency::FormatBytes(bytes);
  return st.rt->manager->budget(residency::Tier::kGpu);
}

void ModelBackend::Tick() { state_->scheduler->RequestIdleWork(); }

void ModelBackend::Cancel(uint64_t job_id) { state_->scheduler->CancelTicket(job_id); }

int64_t ModelBackend::JobSlots() const { return state_->rt->config.max_batch; }

std::string ModelBackend::StatusLine() const {
  const PipelineStats p = state_->scheduler->stats();
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(2);
  o << "pages " << p.waiting << " waiting, " << p.parked << " parked, " << p.prefilling << " prefilling, "
    << p.decoding << " decoding; KV pages " << p.kv_pages_used << "/" << p.kv_pages_total << " used, "
    << p.kv_pages_swapped << " swapped; " << p.preemptions << " preemptions; " << p.pages_per_second
    << " pages/s, " << p.tokens_per_second << " tokens/s";
  return o.str();
}

}  // namespace mineru::pipeline
