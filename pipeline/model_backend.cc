#include "pipeline/model_backend.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/log.h"
#include "document/model_output_parser.h"
#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "engine/checkpoint.h"
#include "engine/decoder_workspace.h"
#include "engine/host_allocator.h"
#include "engine/image_merge.h"
#include "engine/image_preprocess.h"
#include "engine/lease_conversion.h"
#include "engine/mineru2_model.h"
#include "engine/model_units.h"
#include "engine/paged_kv_cache.h"
#include "engine/prompt_template.h"
#include "engine/residency_weight_source.h"
#include "engine/tokenizer.h"
#include "engine/tokenizer_prompt.h"
#include "engine/torch_status.h"
#include "engine/vision_workspace.h"
#include "pipeline/page_batcher.h"
#include "residency/cuda_device.h"
#include "residency/host_device.h"
#include "residency/residency_manager.h"

namespace mineru::pipeline {
namespace {

// With vram_budget = 0 ("everything resident"): a cap on the KV cache.
constexpr uint64_t kMaxAutoKvBytes = 4ull << 30;

// KV pool and decoder workspace for `pages` pages decoded together, each with up to `prompt_tokens`
// spliced prompt tokens and `max_new_tokens` generated ones.
struct PagesMemory {
  int64_t kv_tokens = 0;
  uint64_t kv_bytes = 0;  // the pool's kGpu region, null page included
  uint64_t workspace_bytes = 0;
};

PagesMemory PlanPages(const engine::ModelConfig& mc, const std::vector<engine::UnitInfo>& units,
                      at::ScalarType dtype, bool on_cpu, const Config& config, int64_t prompt_tokens,
                      int64_t max_new_tokens, int64_t pages) {
  const engine::TextConfig& t = mc.text;
  const int64_t per_page = prompt_tokens + max_new_tokens;
  PagesMemory m;
  m.kv_tokens = pages * per_page;
  m.kv_bytes = engine::PagedKvCache::PoolBytes(t, dtype, config.kv_page_tokens, m.kv_tokens);
  // Prefill runs one page's chunks at a time; a decode step runs every page's next token at once.
  engine::DecoderWorkspaceShape prefill;
  prefill.rows = prefill.max_slice_rows = std::min<int64_t>(config.prefill_chunk_tokens, prompt_tokens);
  prefill.logit_rows = 1;
  prefill.max_keys = per_page;
  prefill.on_cpu = on_cpu;
  engine::DecoderWorkspaceShape decode;
  decode.rows = decode.logit_rows = decode.num_slices = pages;
  decode.max_slice_rows = 1;
  decode.max_keys = per_page;
  decode.on_cpu = on_cpu;
  const uint64_t decoder = std::max(engine::DecoderWorkspaceBytes(t, dtype, prefill),
                                    engine::DecoderWorkspaceBytes(t, dtype, decode)) +
                           engine::LeaseConversionBytes(units, dtype);
  // A page's crops through the vision tower (at most the largest grid's), reserved in turn with the
  // decoder's forwards on the one model thread: the budget holds the larger of the two.
  const engine::MultimodalConfig& mm = *mc.multimodal;
  engine::VisionWorkspaceShape vision;
  vision.crops = 1 + mm.max_grid_side * mm.max_grid_side;
  vision.crops_per_chunk = engine::ModelOptions().vision_crops_per_chunk;
  vision.crops_per_attention = engine::ModelOptions().vision_crops_per_attention;
  vision.on_cpu = on_cpu;
  m.workspace_bytes = std::max(decoder, engine::VisionWorkspaceBytes(mm, t.hidden_size, dtype, vision) +
                                            engine::VisionLeaseConversionBytes(units, dtype));
  return m;
}

Result<std::unique_ptr<residency::Device>> OpenDevice() {
#if defined(MINERU_HAVE_CUDA)
  if (residency::CudaDeviceAvailable()) return residency::CreateCudaDevice(0);
#endif
  return std::unique_ptr<residency::Device>(std::make_unique<residency::HostDevice>());
}

}  // namespace

// The smallest kGpu budget that can run a page: its KV pages, the workspace and the largest unit.
static Status CheckBudget(uint64_t budget, uint64_t minimum) {
  if (budget >= minimum) return Status::Ok();
  return InvalidArgument("the model needs a vram_budget of at least " + std::to_string(minimum) + " bytes (" +
                         residency::FormatBytes(minimum) +
                         ": one page's KV cache, the decoder's working memory and the largest layer); " +
                         residency::FormatBytes(budget) + " is too small");
}

struct ModelBackend::State {
  Config config;
  std::unique_ptr<residency::Device> device;
  std::unique_ptr<residency::ResidencyManager> manager;
  std::unique_ptr<engine::Tokenizer> tokenizer;
  std::unique_ptr<engine::Mineru2Model> model;
  std::unique_ptr<PageBatcher> batcher;
  uint64_t weight_bytes = 0;
  uint64_t largest_unit_bytes = 0;
  uint64_t min_budget_bytes = 0;      // one page: what a start needs
  uint64_t running_budget_bytes = 0;  // the KV pool as sized at start, its batch's workspace, a unit
  int64_t kv_capacity_tokens = 0;
  int64_t window_pages = 1;
};

ModelBackend::ModelBackend(std::unique_ptr<State> state) : state_(std::move(state)) {}

ModelBackend::~ModelBackend() {
  // The batcher's thread uses the model; the model's weights live in the manager on the device.
  if (state_) {
    state_->batcher.reset();
    state_->model.reset();
    state_->manager.reset();
  }
}

Result<std::unique_ptr<ModelBackend>> ModelBackend::Load(const Config& config) {
  auto st = std::make_unique<State>();
  st->config = config;
  const std::filesystem::path dir = config.model_dir;
  MINERU_ASSIGN_OR_RETURN(engine::ModelConfig mc, engine::ModelConfig::Load(dir));
  if (!mc.multimodal) {
    return InvalidArgument(dir.string() +
                           " holds a text-only model; minerud needs MinerU 2.0 (a vision tower)");
  }
  const std::filesystem::path tokenizer_path = dir / "tokenizer.json";
  MINERU_ASSIGN_OR_RETURN(st->tokenizer, engine::Tokenizer::FromFile(tokenizer_path));
  MINERU_ASSIGN_OR_RETURN(int32_t image_token,
                          engine::ResolveImageTokenId(*st->tokenizer, mc.multimodal->image_token_index));
  MINERU_ASSIGN_OR_RETURN(std::vector<int32_t> prompt,
                          engine::EncodeImagePrompt(*st->tokenizer, engine::MineruPrompt(), image_token));
  for (int32_t id : prompt) {
    if (id < 0 || id >= mc.text.vocab_size) {
      return InvalidArgument(tokenizer_path.string() + " encodes the MinerU prompt to token " +
                             std::to_string(id) + ", outside the model's vocabulary of " +
                             std::to_string(mc.text.vocab_size));
    }
  }

  // Sizes. The kGpu budget holds the weights the manager keeps resident (as stored), the KV pool and
  // the decoder's workspace together; pages are batched as far as KV and workspace fit in half of it.
  MINERU_ASSIGN_OR_RETURN(engine::Checkpoint ckpt, engine::Checkpoint::Open(dir));
  MINERU_ASSIGN_OR_RETURN(std::vector<engine::UnitInfo> units, engine::ListModelUnits(ckpt, mc));
  for (const auto& u : units) {
    const uint64_t bytes = engine::ResidencyWeightSource::FootprintBytes(u);
    st->weight_bytes += bytes;
    st->largest_unit_bytes = std::max(st->largest_unit_bytes, bytes);
  }
  MINERU_ASSIGN_OR_RETURN(st->device, OpenDevice());
  const bool on_cpu = !st->device->is_cuda();
  const at::ScalarType dtype = on_cpu ? at::kFloat : at::kBFloat16;
  const int64_t max_new_tokens =
      config.max_new_tokens > 0 ? config.max_new_tokens : mc.generation.max_new_tokens;
  const auto& mm = *mc.multimodal;
  const int64_t largest_image = engine::MergedImageShape(engine::TileGrid{mm.max_grid_side, mm.max_grid_side},
                                                         mm.vision.patches_per_side, mm.anyres_max_tiles)
                                    .num_tokens;
  const int64_t prompt_tokens = static_cast<int64_t>(prompt.size()) - 1 + largest_image;
  const PagesMemory one = PlanPages(mc, units, dtype, on_cpu, config, prompt_tokens, max_new_tokens, 1);
  int64_t pages = 1;
  PagesMemory chosen = one;
  for (int64_t n = 2; n <= config.max_batch; ++n) {
    const PagesMemory more = PlanPages(mc, units, dtype, on_cpu, config, prompt_tokens, max_new_tokens, n);
    const bool fits = config.vram_budget_bytes == 0
                          ? more.kv_bytes <= kMaxAutoKvBytes
                          : more.kv_bytes + more.workspace_bytes <= config.vram_budget_bytes / 2;
    if (!fits) break;
    pages = n;
    chosen = more;
  }
  st->kv_capacity_tokens = chosen.kv_tokens;
  st->window_pages = pages;
  st->min_budget_bytes = one.kv_bytes + one.workspace_bytes + st->largest_unit_bytes;
  st->running_budget_bytes = chosen.kv_bytes + chosen.workspace_bytes + st->largest_unit_bytes;

  residency::ResidencyOptions ro;
  ro.gpu_budget_bytes = config.vram_budget_bytes;
  if (ro.gpu_budget_bytes == 0) {
    ro.gpu_budget_bytes = st->weight_bytes + chosen.kv_bytes + chosen.workspace_bytes;
  }
  MINERU_RETURN_IF_ERROR(CheckBudget(ro.gpu_budget_bytes, st->min_budget_bytes));
  ro.pinned_budget_bytes = config.pinned_budget_bytes;
  if (ro.pinned_budget_bytes == 0) ro.pinned_budget_bytes = st->weight_bytes;
  ro.keep_alive_ms = config.keep_alive_ms;
  MINERU_ASSIGN_OR_RETURN(st->manager, residency::ResidencyManager::Create(st->device.get(), ro));

  engine::ModelOptions mo;
  mo.compute_dtype = dtype;
  mo.kv_page_tokens = config.kv_page_tokens;
  mo.kv_capacity_tokens = st->kv_capacity_tokens;
  mo.residency = st->manager.get();
  MINERU_ASSIGN_OR_RETURN(st->model, engine::Mineru2Model::Load(dir, mo));

  PageBatcherOptions bo;
  bo.model = st->model.get();
  bo.tokenizer = st->tokenizer.get();
  bo.prompt_tokens.assign(prompt.begin(), prompt.end());
  bo.max_batch = config.max_batch;
  bo.max_new_tokens = max_new_tokens;
  bo.no_repeat_ngram_size = mc.generation.no_repeat_ngram_size;
  bo.eos_token_ids = mc.generation.eos_token_ids;
  bo.prefill_chunk_tokens = config.prefill_chunk_tokens;
  bo.kv_capacity_tokens = st->kv_capacity_tokens;
  // On the CPU, freed activation blocks stay in the heap for the next page (host_allocator.h) and go
  // back to the system when the model goes idle.
  if (on_cpu) engine::KeepFreedHostMemoryForReuse();
  bo.watchdog = &ProcessWatchdog();
  bo.idle_work = [manager = st->manager.get(), on_cpu] {
    if (manager->Tick() && on_cpu) engine::TrimHostMemory();
  };
  st->batcher = std::make_unique<PageBatcher>(std::move(bo));
  return std::unique_ptr<ModelBackend>(new ModelBackend(std::move(st)));
}

std::string ModelBackend::Describe() const {
  std::ostringstream s;
  s << "MinerU 2.0 from " << state_->config.model_dir << " on " << state_->device->Describe() << ": weights "
    << residency::FormatBytes(state_->weight_bytes) << ", VRAM budget "
    << residency::FormatBytes(state_->manager->budget(residency::Tier::kGpu)) << ", KV for "
    << state_->kv_capacity_tokens << " tokens, up to " << state_->window_pages << " pages per batch";
  return s.str();
}

Result<BackendOutput> ModelBackend::Parse(const BackendInput& input, const PageProgressFn& progress,
                                          const CancelFlag& cancel) {
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<document::PdfDocument> pdf, OpenBackendDocument(input, cancel));
  document::ParsedDocument doc;
  doc.backend = "vlm";
  doc.num_pages = pdf->page_count();
  doc.warnings = pdf->TakeWarnings();
  MINERU_ASSIGN_OR_RETURN(const document::ResolvedPages range,
                          document::ResolvePageRange(input.pages, doc.num_pages));
  const auto& mm = *state_->model->config().multimodal;
  engine::ImagePreprocessOptions po;
  po.anyres.tile_size = static_cast<int>(mm.vision.image_size);
  po.anyres.max_tiles_per_side = static_cast<int>(mm.max_grid_side);
  const double dpi = static_cast<double>(state_->config.render_dpi);

  int64_t pages_done = 0;
  for (int first = range.first; first <= range.last; first += static_cast<int>(state_->window_pages)) {
    const int last = std::min<int>(range.last, first + static_cast<int>(state_->window_pages) - 1);
    struct Rendered {
      int page_index = 0;
      document::PageSize size;
      document::RgbImage image;
      std::string error;  // set when the page could not be rendered
    };
    std::vector<Rendered> rendered;
    std::vector<PageWork> work;
    for (int i = first; i <= last; ++i) {
      if (cancel.load(std::memory_order_acquire))
        return Status(StatusCode::kCancelled, "the job was cancelled");
      if (input.watch) input.watch->Expect(input.page_allowance);
      Rendered r;
      r.page_index = i;
      auto size = pdf->GetPageSize(i);
      auto image = size.ok() ? pdf->RenderPage(i, dpi) : Result<document::RgbImage>(size.status());
      if (!image.ok()) {
        const Status& s = image.status();
        // A limit of the document ends it; a page MuPDF cannot draw (or over the pixel cap) fails alone.
        if (s.code() == StatusCode::kDeadlineExceeded || s.code() == StatusCode::kCancelled ||
            (s.code() == StatusCode::kResourceExhausted && !s.message().starts_with("page render of"))) {
          return s.WithContext("page " + std::to_string(i + 1));
        }
        r.error = s.message();
        rendered.push_back(std::move(r));
        continue;
      }
      r.size = *size;
      r.image = std::move(*image);
      const engine::ImageU8View view{r.image.pixels.data(), r.image.width, r.image.height, 3,
                                     static_cast<size_t>(r.image.width) * 3};
      MINERU_ASSIGN_OR_RETURN(engine::PreprocessedImage pre, engine::PreprocessImage(view, po));
      PageWork w;
      MINERU_ASSIGN_OR_RETURN(w.pixels, engine::CatchTorch("page pixels", [&]() -> Result<at::Tensor> {
                                return at::from_blob(pre.pixel_values.data(),
                                                     {pre.num_crops, 3, pre.crop_size, pre.crop_size},
                                                     at::kFloat)
                                    .clone();
                              }));
      w.image_width = pre.image_width;
      w.image_height = pre.image_height;
      w.cancel = &cancel;
      w.deadline = input.deadline;
      work.push_back(std::move(w));
      rendered.push_back(std::move(r));
    }
    std::vector<std::future<Result<std::string>>> texts = state_->batcher->Submit(std::move(work));
    size_t next_text = 0;
    for (Rendered& r : rendered) {
      if (!r.error.empty()) {
        document::PageResult page;
        page.page_idx = r.page_index;
        page.status = document::PageStatus::kFailed;
        page.error = r.error;
        doc.pages.push_back(std::move(page));
      } else {
        if (input.watch) input.watch->Idle();  // the model thread has its own deadline
        Result<std::string> text = texts[next_text++].get();
        if (input.watch) input.watch->Expect(input.page_allowance);
        if (!text.ok()) {
          // Wait for the rest of the window: their pages point into this job's cancel flag.
          for (; next_text < texts.size(); ++next_text) texts[next_text].wait();
          if (cancel.load(std::memory_order_acquire)) {
            return Status(StatusCode::kCancelled, "the job was cancelled");
          }
          return text.status().WithContext("page " + std::to_string(r.page_index + 1));
        }
        doc.pages.push_back(document::BuildVlmPage(r.page_index, r.size.width_pt, r.size.height_pt,
                                                   std::move(*text), r.image, doc));
      }
      r.image = {};
      progress(++pages_done, range.count(), MakePageOutput(doc.pages.back(), "vlm"));
    }
  }
  MINERU_ASSIGN_OR_RETURN(document::OutputFiles files, document::WriteOutputs(doc, input.name, pdf.get()));
  return ToBackendOutput(std::move(files), static_cast<int64_t>(doc.pages.size()));
}

BackendStats ModelBackend::Stats() const {
  BackendStats out;
  const residency::Stats st = state_->manager->GetStats();
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
  const PageBatcherStats b = state_->batcher->stats();
  out.counters = {
      {"model_bytes_promoted_total", static_cast<double>(st.bytes_promoted)},
      {"model_bytes_demoted_total", static_cast<double>(st.bytes_demoted)},
      {"model_prefetch_hits_total", static_cast<double>(st.prefetch_hits)},
      {"model_prefetch_stalls_total", static_cast<double>(st.prefetch_stalls)},
      {"model_evictions_total", static_cast<double>(st.evictions)},
      {"model_idle_demotions_total", static_cast<double>(st.idle_demotions)},
      {"kv_capacity_tokens", static_cast<double>(state_->kv_capacity_tokens)},
      {"vlm_batches_total", static_cast<double>(b.batches)},
      {"vlm_pages_total", static_cast<double>(b.pages)},
      {"vlm_largest_batch", static_cast<double>(b.largest_batch)},
      {"vlm_tokens_generated_total", static_cast<double>(b.tokens_generated)},
      {"vlm_pages_waiting", static_cast<double>(b.pages_waiting)},
  };
  return out;
}

Status ModelBackend::Reconfigure(const Config& config) {
  State& st = *state_;
  if (config.vram_budget_bytes == st.config.vram_budget_bytes) return Status::Ok();
  if (config.vram_budget_bytes == 0) {
    MINERU_LOG(kWarning) << "vram_budget = 0 (all free memory) takes effect at restart";
    return Status::Ok();
  }
  MINERU_RETURN_IF_ERROR(SetVramBudget(config.vram_budget_bytes).status().WithContext("vram_budget"));
  st.config.vram_budget_bytes = config.vram_budget_bytes;
  return Status::Ok();
}

Result<uint64_t> ModelBackend::SetVramBudget(uint64_t bytes) {
  State& st = *state_;
  MINERU_RETURN_IF_ERROR(CheckBudget(bytes, st.min_budget_bytes));
  // The KV pool keeps the size it got at start (for its batch of pages).
  if (bytes < st.running_budget_bytes) {
    return InvalidArgument("the KV cache was sized at start for " + std::to_string(st.window_pages) +
                           " pages at once; a vram_budget below " +
                           residency::FormatBytes(st.running_budget_bytes) + " needs a restart");
  }
  MINERU_RETURN_IF_ERROR(st.manager->SetBudget(residency::Tier::kGpu, bytes));
  MINERU_LOG(kInfo) << "VRAM budget now " << residency::FormatBytes(bytes);
  return st.manager->budget(residency::Tier::kGpu);
}

void ModelBackend::Tick() { state_->batcher->RequestIdleWork(); }

}  // namespace mineru::pipeline
