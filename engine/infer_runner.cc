#include "engine/infer_runner.h"

#include <ATen/Parallel.h>

#include "common/clock.h"
#include "common/cpu_count.h"
#include "engine/generator.h"
#include "engine/image_preprocess.h"
#include "engine/image_preprocess_png.h"
#include "engine/mineru2_model.h"
#include "engine/model_memory.h"
#include "engine/tokenizer.h"
#include "engine/torch_status.h"
#include "residency/host_device.h"
#include "residency/residency_manager.h"

namespace mineru::engine {
namespace {

Result<at::Tensor> ReadPixels(const std::string& path) {
  MINERU_ASSIGN_OR_RETURN(SafetensorsFile f, SafetensorsFile::Open(path));
  const TensorEntry* e = f.Find("pixel_values");
  if (!e) return InvalidArgument(path + ": no tensor \"pixel_values\"");
  if (e->dtype != StorageDtype::kF32 && e->dtype != StorageDtype::kBF16 && e->dtype != StorageDtype::kF16) {
    return InvalidArgument(path + ": pixel_values must be F32, F16 or BF16");
  }
  MINERU_ASSIGN_OR_RETURN(at::Tensor view, f.View(*e));
  return CatchTorch("reading pixel_values",
                    [&]() -> Result<at::Tensor> { return view.to(at::kFloat, false, true); });
}

// The residency manager every run goes through: HostDevice (the CPU build's device) and one kGpu budget
// for the weights' share (--vram-budget, or all of the weights), the KV pool and the larger of the
// decoder's and the vision encode's workspace (model_memory.h).
struct RunResidency {
  std::unique_ptr<residency::HostDevice> device;
  std::unique_ptr<residency::ResidencyManager> manager;
  InferMemory memory;
};

Result<RunResidency> CreateRunResidency(const InferOptions& o, const ModelConfig& config,
                                        InferMemoryRequest request) {
  MINERU_ASSIGN_OR_RETURN(Checkpoint ckpt, Checkpoint::Open(o.model_dir));
  MINERU_ASSIGN_OR_RETURN(request.units, ListModelUnits(ckpt, config));
  request.weight_budget_fraction = 1.0;  // without --vram-budget: every weight stays resident
  if (o.vram_budget_fraction) request.weight_budget_fraction = *o.vram_budget_fraction;
  if (o.vram_budget_bytes) {
    request.weight_budget_fraction = -1;
    request.weight_budget_bytes = *o.vram_budget_bytes;
  }
  RunResidency r;
  r.memory = PlanInferMemory(config, request);
  r.device = std::make_unique<residency::HostDevice>();
  residency::ResidencyOptions ro;
  ro.gpu_budget_bytes = r.memory.gpu_budget_bytes;
  ro.pinned_budget_bytes = 0;
  MINERU_ASSIGN_OR_RETURN(r.manager, residency::ResidencyManager::Create(r.device.get(), ro));
  return r;
}

}  // namespace

Result<nlohmann::json> RunInfer(const InferOptions& o) {
  at::set_num_threads(o.threads > 0 ? static_cast<int>(o.threads) : UsableCpus());
  Stopwatch load_clock;
  ModelOptions mo;
  mo.compute_dtype = o.dtype == "bf16" ? at::kBFloat16 : at::kFloat;
  mo.kv_page_tokens = o.kv_page_tokens;
  std::optional<at::Tensor> pixels;
  int64_t image_tokens_max = 0;
  int64_t image_width = o.image_width, image_height = o.image_height;
  MINERU_ASSIGN_OR_RETURN(ModelConfig config, ModelConfig::Load(o.model_dir));
  // The checkpoint's own tokenizer (its added tokens include <image> and MinerU's markers).
  std::unique_ptr<Tokenizer> tokenizer;
  const std::filesystem::path tokenizer_path = std::filesystem::path(o.model_dir) / "tokenizer.json";
  if (o.prompt || std::filesystem::exists(tokenizer_path)) {
    MINERU_ASSIGN_OR_RETURN(tokenizer, Tokenizer::FromFile(tokenizer_path));
  }
  std::vector<int64_t> tokens;
  if (o.prompt) {
    MINERU_ASSIGN_OR_RETURN(std::vector<int32_t> ids, tokenizer->Encode(*o.prompt));
    tokens.assign(ids.begin(), ids.end());
    if (tokens.empty()) return InvalidArgument("--prompt encodes to no tokens");
  } else {
    tokens = *o.tokens;
  }
  if (o.image_path) {
    if (!config.multimodal)
      return InvalidArgument(o.model_dir + " is a text-only model; --image does not apply");
    MINERU_ASSIGN_OR_RETURN(ImageU8 page, ReadPngRgb(*o.image_path));
    ImagePreprocessOptions po;
    po.anyres.tile_size = static_cast<int>(config.multimodal->vision.image_size);
    po.anyres.max_tiles_per_side = static_cast<int>(config.multimodal->max_grid_side);
    MINERU_ASSIGN_OR_RETURN(PreprocessedImage pre, PreprocessImage(page.View(), po));
    image_width = pre.image_width;
    image_height = pre.image_height;
    MINERU_ASSIGN_OR_RETURN(pixels, CatchTorch("page pixels", [&]() -> Result<at::Tensor> {
                              return at::from_blob(pre.pixel_values.data(),
                                                   {pre.num_crops, 3, pre.crop_size, pre.crop_size},
                                                   at::kFloat)
                                  .clone();
                            }));
    const auto& mm = *config.multimodal;
    const TileGrid grid = SelectTileGrid(image_width, image_height, mm.vision.image_size, mm.max_grid_side);
    image_tokens_max = MergedImageShape(grid, mm.vision.patches_per_side, mm.anyres_max_tiles).num_tokens;
  }
  if (o.pixels_path) {
    if (!config.multimodal)
      return InvalidArgument(o.model_dir + " is a text-only model; --pixels does not apply");
    MINERU_ASSIGN_OR_RETURN(pixels, ReadPixels(*o.pixels_path));
    const auto& mm = *config.multimodal;
    const TileGrid grid =
        SelectTileGrid(o.image_width, o.image_height, mm.vision.image_size, mm.max_grid_side);
    image_tokens_max = MergedImageShape(grid, mm.vision.patches_per_side, mm.anyres_max_tiles).num_tokens;
    // A pool with more crops than the grid needs (as ../shared/golden/pixels): the first 1 + gw*gh.
    const int64_t need = 1 + grid.gw * grid.gh;
    if (pixels->dim() == 4 && pixels->size(0) > need) pixels = pixels->narrow(0, 0, need).contiguous();
  }
  mo.kv_capacity_tokens = static_cast<int64_t>(tokens.size()) + image_tokens_max + o.generate + 1;
  // Weights, KV pages and workspace through the residency manager, under one kGpu budget. Declared
  // before the model, which must go first.
  InferMemoryRequest request;
  request.compute_dtype = mo.compute_dtype;
  request.kv_page_tokens = mo.kv_page_tokens;
  request.kv_capacity_tokens = mo.kv_capacity_tokens;
  request.prompt_tokens = static_cast<int64_t>(tokens.size()) + image_tokens_max;
  request.generate = o.generate;
  request.prefill_chunk = o.prefill_chunk;
  request.all_prompt_logits = o.logits_out.has_value();
  request.key_block_tokens = mo.attention_key_block_tokens;
  request.vision_crops = pixels ? pixels->size(0) : 0;
  request.vision_crops_per_chunk = mo.vision_crops_per_chunk;
  request.vision_crops_per_attention = mo.vision_crops_per_attention;
  MINERU_ASSIGN_OR_RETURN(RunResidency run_residency, CreateRunResidency(o, config, std::move(request)));
  mo.residency = run_residency.manager.get();
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<Mineru2Model> model, Mineru2Model::Load(o.model_dir, mo));
  const double load_ms = load_clock.ElapsedMillis();

  Stopwatch vision_clock;
  std::optional<at::Tensor> image;
  if (pixels) {
    MINERU_ASSIGN_OR_RETURN(image, model->EncodeImage(*pixels, image_width, image_height));
  }
  const double vision_ms = vision_clock.ElapsedMillis();
  MINERU_ASSIGN_OR_RETURN(at::Tensor embeds, model->EmbedPrompt(tokens, image ? &*image : nullptr));

  GenerationRequest req;
  req.prompt_embeds = embeds;
  req.sampling.max_new_tokens = o.generate;
  req.sampling.no_repeat_ngram_size = o.no_repeat_ngram.value_or(config.generation.no_repeat_ngram_size);
  req.sampling.eos_token_ids = config.generation.eos_token_ids;
  req.keep_prompt_logits = o.logits_out.has_value();
  req.keep_step_logits = o.logits_out.has_value();
  GenerateOptions go;
  go.prefill_chunk_tokens = o.prefill_chunk;
  MINERU_ASSIGN_OR_RETURN(std::vector<GenerationResult> results,
                          Generate(model->decoder(), std::span<const GenerationRequest>(&req, 1), go));
  const GenerationResult& r = results[0];
  if (o.logits_out) {
    std::vector<std::pair<std::string, at::Tensor>> out = {{"prompt_logits", r.prompt_logits}};
    at::Tensor steps =
        r.step_logits.defined() ? r.step_logits : at::zeros({0, config.text.vocab_size}, at::kFloat);
    out.emplace_back("step_logits", steps);
    MINERU_RETURN_IF_ERROR(WriteSafetensors(*o.logits_out, out));
  }
  nlohmann::json j;
  j["prompt_tokens"] = tokens.size();
  j["image_tokens"] = image ? image->size(0) : 0;
  j["crops"] = pixels ? pixels->size(0) : 0;
  j["spliced_tokens"] = embeds.size(0);
  j["generated"] = r.generated;
  j["stopped_at_eos"] = r.stopped_at_eos;
  j["text"] = nullptr;  // without a tokenizer.json in the model folder
  if (tokenizer) {
    const std::vector<int32_t> ids(r.generated.begin(), r.generated.end());
    MINERU_ASSIGN_OR_RETURN(std::string text, tokenizer->Decode(ids));
    j["text"] = text;
  }
  j["timings_ms"] = {
      {"load", load_ms}, {"vision", vision_ms}, {"prefill", r.prefill_ms}, {"decode", r.decode_ms}};
  const PagedKvCache& kv = model->kv_cache();
  j["kv"] = {{"pool", "residency"},
             {"page_size_tokens", kv.options().page_size_tokens},
             {"bytes_per_token", kv.BytesPerToken()},
             {"pages", kv.num_pages()},
             {"pages_used_peak", kv.peak_pages_used()},
             {"pages_used_after", kv.num_pages() - kv.free_pages()}};
  const residency::Stats stats = run_residency.manager->GetStats();
  const residency::TierStats& gpu = stats.tiers[static_cast<int>(residency::Tier::kGpu)];
  j["weights"] = {{"resident_bytes", gpu.weight_bytes},
                  {"resident_units", gpu.units_resident},
                  {"units", stats.units},
                  {"evictions", stats.evictions},
                  {"bytes_promoted", stats.bytes_promoted}};
  j["residency"] = {
      {"gpu_budget_bytes", gpu.budget_bytes},
      {"gpu_peak_bytes", gpu.peak_bytes},
      {"weight_budget_bytes", run_residency.memory.weight_budget_bytes},
      {"kv_pool_bytes", gpu.kv_bytes},
      {"workspace_bound_bytes", run_residency.memory.workspace_bytes},
      {"workspace_reserved_peak_bytes", model->decoder().peak_workspace_bytes()},
      {"vision_workspace_reserved_bytes", model->vision() ? model->vision()->last_workspace_bytes() : 0}};
  return j;
}

}  // namespace mineru::engine
