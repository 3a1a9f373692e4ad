#include "engine/vision_tower.h"

#include <algorithm>

#include "engine/lease_conversion.h"
#include "engine/mm_projector.h"
#include "engine/siglip_embeddings.h"
#include "engine/siglip_encoder_layer.h"
#include "engine/torch_status.h"
#include "engine/vision_workspace.h"
#include "engine/workspace_reservation.h"

namespace mineru::engine {

VisionTower::VisionTower(const MultimodalConfig& config, int64_t text_hidden, WeightSource* weights,
                         int64_t crops_per_attention, int64_t crops_per_chunk,
                         residency::ResidencyManager* workspace_manager)
    : config_(config),
      text_hidden_(text_hidden),
      weights_(weights),
      crops_per_attention_(crops_per_attention),
      crops_per_chunk_(crops_per_chunk),
      workspace_manager_(workspace_manager),
      lease_conversion_bytes_(VisionLeaseConversionBytes(weights->units(), weights->compute_dtype())) {}

Result<VisionOutput> VisionTower::Encode(const at::Tensor& pixels, bool keep_siglip) const {
  const VisionConfig& v = config_.vision;
  if (pixels.dim() != 4 || pixels.size(0) < 1 || pixels.size(1) != v.num_channels ||
      pixels.size(2) != v.image_size || pixels.size(3) != v.image_size) {
    return InvalidArgument("pixel_values: expected [crops, " + std::to_string(v.num_channels) + ", " +
                           std::to_string(v.image_size) + ", " + std::to_string(v.image_size) + "]");
  }
  if (!pixels.is_floating_point()) return InvalidArgument("pixel_values: expected a float tensor");
  VisionWorkspaceShape shape;
  shape.crops = pixels.size(0);
  shape.crops_per_chunk = crops_per_chunk_;
  shape.crops_per_attention = crops_per_attention_;
  shape.keep_siglip = keep_siglip;
  shape.on_cpu = weights_->device().is_cpu();
  last_workspace_bytes_ =
      VisionWorkspaceBytes(config_, text_hidden_, weights_->compute_dtype(), shape) + lease_conversion_bytes_;
  MINERU_ASSIGN_OR_RETURN(residency::WorkspaceReservation workspace,
                          ReserveActivations(workspace_manager_, last_workspace_bytes_, "vision tower"));
  return CatchTorch("vision encoder", [&]() -> Result<VisionOutput> {
    at::Tensor x = pixels.to(weights_->device(), weights_->compute_dtype());
    {
      MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("vision.embeddings"));
      x = SiglipEmbeddings(x, lease, v);
    }
    const int64_t crops = x.size(0);
    for (int64_t j = 0; j < v.num_used_layers; ++j) {
      MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("vision." + std::to_string(j)));
      if (crops <= crops_per_chunk_) {
        x = SiglipEncoderLayer(x, lease, j, v, crops_per_attention_);
        continue;
      }
      at::Tensor next = at::empty_like(x);
      for (int64_t c0 = 0; c0 < crops; c0 += crops_per_chunk_) {
        const int64_t n = std::min(crops_per_chunk_, crops - c0);
        next.narrow(0, c0, n).copy_(
            SiglipEncoderLayer(x.narrow(0, c0, n), lease, j, v, crops_per_attention_));
      }
      x = std::move(next);
    }
    VisionOutput out;
    if (keep_siglip) out.siglip = x;
    MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("projector"));
    out.projected = MmProjector(x, lease);
    return out;
  });
}

}  // namespace mineru::engine
