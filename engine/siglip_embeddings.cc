#include "engine/siglip_embeddings.h"

#include "engine/dense_ops.h"
#include "engine/model_units.h"

namespace mineru::engine {

at::Tensor SiglipEmbeddings(const at::Tensor& pixels, const WeightLease& w, const VisionConfig& c) {
  const std::string p = kVisionEmbeddingsPrefix;
  at::Tensor patches =
      Conv2d(pixels, w.Get(p + "patch_embedding.weight"), w.Get(p + "patch_embedding.bias"), c.patch_size);
  // [crops, hidden, side, side] -> [crops, side*side, hidden]
  at::Tensor x = patches.flatten(2).transpose(1, 2);
  return x + w.Get(p + "position_embedding.weight").unsqueeze(0);
}

}  // namespace mineru::engine
