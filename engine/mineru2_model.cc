#include "engine/mineru2_model.h"

#include "engine/local_weight_store.h"
#include "engine/model_units.h"
#include "engine/residency_weight_source.h"
#include "engine/torch_status.h"

namespace mineru::engine {

Result<std::unique_ptr<Mineru2Model>> Mineru2Model::Load(const std::filesystem::path& dir,
                                                         const ModelOptions& options) {
  MINERU_ASSIGN_OR_RETURN(ModelConfig config, ModelConfig::Load(dir));
  MINERU_ASSIGN_OR_RETURN(Checkpoint ckpt, Checkpoint::Open(dir));
  auto checkpoint = std::make_shared<const Checkpoint>(std::move(ckpt));
  MINERU_ASSIGN_OR_RETURN(std::vector<UnitInfo> units, ListModelUnits(*checkpoint, config));
  if (options.residency) {
    MINERU_ASSIGN_OR_RETURN(std::unique_ptr<ResidencyWeightSource> source,
                            ResidencyWeightSource::Create(std::move(checkpoint), std::move(units),
                                                          options.residency, options.compute_dtype));
    ModelOptions o = options;
    o.device = source->device();
    return FromSource(config, std::move(source), o);
  }
  LocalWeightStoreOptions wo;
  wo.compute_dtype = options.compute_dtype;
  wo.device = options.device;
  wo.resident_budget_bytes = options.weight_budget_bytes;
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<LocalWeightStore> store,
                          LocalWeightStore::Create(std::move(checkpoint), std::move(units), wo));
  return FromSource(config, std::move(store), options);
}

Result<std::unique_ptr<Mineru2Model>> Mineru2Model::FromSource(const ModelConfig& config,
                                                               std::unique_ptr<WeightSource> weights,
                                                               const ModelOptions& options) {
  if (options.attention_key_block_tokens < 1 || options.vision_crops_per_attention < 1 ||
      options.vision_crops_per_chunk < 1) {
    return InvalidArgument("attention block sizes must be positive");
  }
  if (options.kv_page_tokens < 1) return InvalidArgument("--kv-page-tokens must be at least 1");
  std::unique_ptr<Mineru2Model> m(new Mineru2Model());
  m->config_ = config;
  m->weights_ = std::move(weights);
  PagedKvCacheOptions kv;
  kv.num_layers = config.text.num_layers;
  kv.num_kv_heads = config.text.num_kv_heads;
  kv.head_dim = config.text.head_dim;
  kv.page_size_tokens = options.kv_page_tokens;
  kv.num_pages =
      PagedKvCache::PagesFor(std::max<int64_t>(options.kv_capacity_tokens, 1), options.kv_page_tokens);
  kv.dtype = options.compute_dtype;
  kv.device = options.device;
  kv.residency = options.residency;  // the pages come from the manager's KV pool, under its budget
  MINERU_ASSIGN_OR_RETURN(m->cache_, PagedKvCache::Create(kv));
  m->decoder_ = std::make_unique<Qwen2Decoder>(config.text, m->weights_.get(), m->cache_.get(),
                                               options.attention_key_block_tokens, options.residency);
  if (config.multimodal) {
    m->vision_ = std::make_unique<VisionTower>(*config.multimodal, config.text.hidden_size, m->weights_.get(),
                                               options.vision_crops_per_attention,
                                               options.vision_crops_per_chunk, options.residency);
  }
  return m;
}

Result<VisionOutput> Mineru2Model::EncodeCrops(const at::Tensor& pixels, bool keep_siglip) const {
  if (!vision_)
    return FailedPrecondition("this model has no vision tower (model_type " + config_.model_type + ")");
  return vision_->Encode(pixels, keep_siglip);
}

Result<int64_t> Mineru2Model::CropsFor(int64_t image_width, int64_t image_height) const {
  if (!vision_)
    return FailedPrecondition("this model has no vision tower (model_type " + config_.model_type + ")");
  if (image_width < 1 || image_height < 1 || image_width > (1 << 20) || image_height > (1 << 20)) {
    return InvalidArgument("image size " + std::to_string(image_width) + "x" + std::to_string(image_height) +
                           " is out of range");
  }
  const MultimodalConfig& mm = *config_.multimodal;
  const TileGrid grid = SelectTileGrid(image_width, image_height, mm.vision.image_size, mm.max_grid_side);
  return 1 + grid.gw * grid.gh;
}

Result<int64_t> Mineru2Model::ImageTokensFor(int64_t image_width, int64_t image_height) const {
  MINERU_RETURN_IF_ERROR(CropsFor(image_width, image_height).status());
  const MultimodalConfig& mm = *config_.multimodal;
  const TileGrid grid = SelectTileGrid(image_width, image_height, mm.vision.image_size, mm.max_grid_side);
  return MergedImageShape(grid, mm.vision.patches_per_side, mm.anyres_max_tiles).num_tokens;
}

Result<at::Tensor> Mineru2Model::EncodeImage(const at::Tensor& pixels, int64_t image_width,
                                             int64_t image_height) const {
  const PageImage page{pixels, image_width, image_height};
  MINERU_ASSIGN_OR_RETURN(std::vector<at::Tensor> tokens, EncodeImages({&page, 1}));
  return std::move(tokens[0]);
}

Result<std::vector<at::Tensor>> Mineru2Model::EncodeImages(std::span<const PageImage> pages) const {
  if (pages.empty()) return std::vector<at::Tensor>{};
  std::vector<at::Tensor> crops;
  for (const PageImage& p : pages) {
    MINERU_ASSIGN_OR_RETURN(int64_t n, CropsFor(p.width, p.height));
    if (p.pixels.dim() != 4 || p.pixels.size(0) != n) {
      return InvalidArgument(
          "pixel_values: a " + std::to_string(p.width) + "x" + std::to_string(p.height) + " page has " +
          std::to_string(n) + " crops, got " +
          (p.pixels.dim() == 4 ? std::to_string(p.pixels.size(0)) : std::string("a non-4-D tensor")));
    }
    crops.push_back(p.pixels);
  }
  MINERU_ASSIGN_OR_RETURN(at::Tensor all, CatchTorch("page crops", [&]() -> Result<at::Tensor> {
                            return crops.size() == 1 ? crops[0] : at::cat(crops);
                          }));
  MINERU_ASSIGN_OR_RETURN(VisionOutput v, vision_->Encode(all, false));
  MINERU_ASSIGN_OR_RETURN(WeightLease proj, weights_->Acquire("projector"));
  const MultimodalConfig& mm = *config_.multimodal;
  std::vector<at::Tensor> out;
  int64_t first = 0;
  for (const PageImage& p : pages) {
    const TileGrid grid = SelectTileGrid(p.width, p.height, mm.vision.image_size, mm.max_grid_side);
    const int64_t n = p.pixels.size(0);
    MINERU_ASSIGN_OR_RETURN(
        at::Tensor merged,
        MergeImageFeatures(v.projected.narrow(0, first, n), grid, proj.Get("model.image_newline"),
                           mm.vision.patches_per_side, mm.anyres_max_tiles));
    out.push_back(std::move(merged));
    first += n;
  }
  return out;
}

Result<at::Tensor> Mineru2Model::EmbedPrompt(std::span<const int64_t> tokens, const at::Tensor* image) const {
  if (tokens.empty()) return InvalidArgument("the prompt is empty");
  MINERU_ASSIGN_OR_RETURN(at::Tensor text, decoder_->Embed(tokens));
  const int64_t image_token = config_.multimodal ? config_.multimodal->image_token_index : -1;
  if (image && !config_.multimodal) return FailedPrecondition("an image was given to a text-only model");
  return SpliceImage(tokens, text, image_token, image);
}

}  // namespace mineru::engine
