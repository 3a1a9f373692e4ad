// The vision path of MinerU 2.0 per crop: SigLIP embeddings, the first N-1 encoder layers (no
// post_layernorm, no pooling head), then the projector. Weights are leased one unit at a time; each
// vision layer runs over all crops while its lease is held, `crops_per_chunk` crops at a time so its
// temporaries stay bounded. With a residency manager, each encode first reserves its activation
// workspace there (vision_workspace.h).
#pragma once

#include <ATen/ATen.h>

#include "common/result.h"
#include "engine/model_config.h"
#include "engine/weight_source.h"

namespace mineru::residency {
class ResidencyManager;
}

namespace mineru::engine {

struct VisionOutput {
  at::Tensor siglip;     // [crops, patches, vision hidden] (only when asked for)
  at::Tensor projected;  // [crops, patches, hidden]
};

class VisionTower {
 public:
  VisionTower(const MultimodalConfig& config, int64_t text_hidden, WeightSource* weights,
              int64_t crops_per_attention, int64_t crops_per_chunk,
              residency::ResidencyManager* workspace_manager = nullptr);

  // pixels: [crops, channels, image_size, image_size], any float dtype (cast to the compute dtype).
  Result<VisionOutput> Encode(const at::Tensor& pixels, bool keep_siglip) const;

  // The workspace bound of the last encode (reserved when there is a manager).
  uint64_t last_workspace_bytes() const { return last_workspace_bytes_; }

 private:
  MultimodalConfig config_;
  int64_t text_hidden_;
  WeightSource* weights_;
  int64_t crops_per_attention_;
  int64_t crops_per_chunk_;
  residency::ResidencyManager* workspace_manager_;
  uint64_t lease_conversion_bytes_;
  mutable uint64_t last_workspace_bytes_ = 0;
};

}  // namespace mineru::engine
