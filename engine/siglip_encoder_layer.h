// One SigLIP encoder layer: x += out_proj(MHA(layer_norm1(x))) with full bidirectional attention over
// the patches of each crop; x += fc2(gelu_tanh(fc1(layer_norm2(x)))). All linear maps carry biases.
// The linear layers run over every crop at once; attention runs `crops_per_attention` crops at a time
// to bound the score workspace (heads x patches x patches per crop).
#pragma once

#include <ATen/ATen.h>

#include "engine/model_config.h"
#include "engine/weight_source.h"

namespace mineru::engine {

// x: [crops, patches, hidden]. `weights` is the lease on unit vision.<layer>.
at::Tensor SiglipEncoderLayer(const at::Tensor& x, const WeightLease& weights, int64_t layer,
                              const VisionConfig& config, int64_t crops_per_attention);

}  // namespace mineru::engine
