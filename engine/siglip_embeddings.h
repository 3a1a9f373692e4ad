// SigLIP patch embeddings: a conv with kernel = stride = patch_size (with bias) over each crop, the
// patches flattened row-major, plus the learned absolute position embedding. No CLS token. With a
// 384 px crop and 14 px patches the last 6 px of each row and column are never seen.
#pragma once

#include <ATen/ATen.h>

#include "engine/model_config.h"
#include "engine/weight_source.h"

namespace mineru::engine {

// pixels: [crops, channels, image_size, image_size] in the compute dtype. Returns [crops, patches, hidden].
at::Tensor SiglipEmbeddings(const at::Tensor& pixels, const WeightLease& weights, const VisionConfig& config);

}  // namespace mineru::engine
