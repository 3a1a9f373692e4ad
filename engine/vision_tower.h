// The vision path of MinerU 2.0 per crop: SigLIP embeddings, the first N-1 encoder layers (no
// post_layernorm, no pooling head), then the projector. Weights are leased one unit at a time; each
// vision layer runs over all crops while its lease is held.
#pragma once

#include <ATen/ATen.h>

#include "common/result.h"
#include "engine/model_config.h"
#include "engine/weight_source.h"

namespace mineru::engine {

struct VisionOutput {
  at::Tensor siglip;     // [crops, patches, vision hidden] (only when asked for)
  at::Tensor projected;  // [crops, patches, hidden]
};

class VisionTower {
 public:
  VisionTower(const MultimodalConfig& config, WeightSource* weights, int64_t crops_per_attention)
      : config_(config), weights_(weights), crops_per_attention_(crops_per_attention) {}

  // pixels: [crops, channels, image_size, image_size], any float dtype (cast to the compute dtype).
  Result<VisionOutput> Encode(const at::Tensor& pixels, bool keep_siglip) const;

 private:
  MultimodalConfig config_;
  WeightSource* weights_;
  int64_t crops_per_attention_;
};

}  // namespace mineru::engine
