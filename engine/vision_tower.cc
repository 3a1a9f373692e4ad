#include "engine/vision_tower.h"

#include "engine/mm_projector.h"
#include "engine/siglip_embeddings.h"
#include "engine/siglip_encoder_layer.h"
#include "engine/torch_status.h"

namespace mineru::engine {

Result<VisionOutput> VisionTower::Encode(const at::Tensor& pixels, bool keep_siglip) const {
  const VisionConfig& v = config_.vision;
  if (pixels.dim() != 4 || pixels.size(0) < 1 || pixels.size(1) != v.num_channels ||
      pixels.size(2) != v.image_size || pixels.size(3) != v.image_size) {
    return InvalidArgument("pixel_values: expected [crops, " + std::to_string(v.num_channels) + ", " +
                           std::to_string(v.image_size) + ", " + std::to_string(v.image_size) + "]");
  }
  if (!pixels.is_floating_point()) return InvalidArgument("pixel_values: expected a float tensor");
  return CatchTorch("vision encoder", [&]() -> Result<VisionOutput> {
    at::Tensor x = pixels.to(weights_->device(), weights_->compute_dtype());
    {
      MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("vision.embeddings"));
      x = SiglipEmbeddings(x, lease, v);
    }
    for (int64_t j = 0; j < v.num_used_layers; ++j) {
      MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("vision." + std::to_string(j)));
      x = SiglipEncoderLayer(x, lease, j, v, crops_per_attention_);
    }
    VisionOutput out;
    if (keep_siglip) out.siglip = x;
    MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("projector"));
    out.projected = MmProjector(x, lease);
    return out;
  });
}

}  // namespace mineru::engine
