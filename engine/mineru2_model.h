// Mineru2Model: MinerU 2.0 assembled from its parts — the vision tower and projector (vision_tower.h),
// the image merge and splice (image_merge.h), and the Qwen2 decoder over a paged KV cache
// (qwen2_decoder.h) — for a model folder or any WeightSource. With ModelOptions::residency, the weights
// are leased from the manager, the KV cache's pages come from its KvPagePool and each decoder forward
// reserves its workspace there: weights, KV pages and workspace share one kGpu budget. A later model
// (MinerU 2.5 / Qwen2-VL) is a sibling class built from its own parts; nothing here switches over
// architectures.
#pragma once

#include <ATen/ATen.h>

#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>

#include "engine/checkpoint.h"
#include "engine/image_merge.h"
#include "engine/model_config.h"
#include "engine/paged_kv_cache.h"
#include "engine/qwen2_decoder.h"
#include "engine/vision_tower.h"
#include "engine/weight_source.h"

namespace mineru::residency {
class ResidencyManager;
}

namespace mineru::engine {

struct ModelOptions {
  at::ScalarType compute_dtype = at::kFloat;
  at::Device device = at::kCPU;
  uint64_t weight_budget_bytes = std::numeric_limits<uint64_t>::max();  // resident weights (LocalWeightStore)
  int64_t kv_page_tokens = 16;
  int64_t kv_capacity_tokens = 32768;  // pages for this many tokens across all sequences
  int64_t attention_key_block_tokens = 512;
  int64_t vision_crops_per_attention = 1;
  int64_t vision_crops_per_chunk = 4;  // crops through a vision encoder layer at once
  // When set, weights are leased from this manager (on its kGpu tier, under its budget) instead of a
  // LocalWeightStore, the KV pages (kv_capacity_tokens of them) come from its KV pool, and the decoder
  // reserves its workspace there; weight_budget_bytes is then unused. Must outlive the model.
  residency::ResidencyManager* residency = nullptr;
};

class Mineru2Model {
 public:
  // Reads and validates a model folder; weights stay on the disk tier until leased.
  static Result<std::unique_ptr<Mineru2Model>> Load(const std::filesystem::path& dir,
                                                    const ModelOptions& options);
  // Any weight source (e.g. random weights for the benchmark).
  static Result<std::unique_ptr<Mineru2Model>> FromSource(const ModelConfig& config,
                                                          std::unique_ptr<WeightSource> weights,
                                                          const ModelOptions& options);

  const ModelConfig& config() const { return config_; }
  bool has_vision() const { return config_.multimodal.has_value(); }
  WeightSource& weights() { return *weights_; }
  const Qwen2Decoder& decoder() const { return *decoder_; }
  PagedKvCache& kv_cache() { return *cache_; }
  const VisionTower* vision() const { return vision_.get(); }  // null for a text-only model

  // Vision features per crop (projector output, optionally the SigLIP output too).
  Result<VisionOutput> EncodeCrops(const at::Tensor& pixels, bool keep_siglip) const;
  // The image tokens of one page: crops [1 + gw*gh, 3, S, S] for a page of image_width x image_height.
  Result<at::Tensor> EncodeImage(const at::Tensor& pixels, int64_t image_width, int64_t image_height) const;
  // The image tokens of several pages whose crops go through the vision tower together (one burst).
  // A page's tokens are bit-identical to EncodeImage() of that page alone.
  struct PageImage {
    at::Tensor pixels;  // [CropsFor(w, h), 3, S, S]
    int64_t width = 0;
    int64_t height = 0;
  };
  Result<std::vector<at::Tensor>> EncodeImages(std::span<const PageImage> pages) const;
  // Crops of a page of width x height (the global view and the grid's tiles); checks the size.
  Result<int64_t> CropsFor(int64_t image_width, int64_t image_height) const;
  // Image tokens of a page of width x height once merged (what the prompt's image token becomes).
  Result<int64_t> ImageTokensFor(int64_t image_width, int64_t image_height) const;
  // Prompt embeddings with the image spliced in at the image token (image may be null).
  Result<at::Tensor> EmbedPrompt(std::span<const int64_t> tokens, const at::Tensor* image) const;

 private:
  Mineru2Model() = default;

  ModelConfig config_;
  std::unique_ptr<WeightSource> weights_;
  std::unique_ptr<PagedKvCache> cache_;
  std::unique_ptr<Qwen2Decoder> decoder_;
  std::unique_ptr<VisionTower> vision_;
};

}  // namespace mineru::engine
