// The multimodal projector `mlp2x_gelu`: Linear(vision hidden -> hidden), exact (erf) GELU,
// Linear(hidden -> hidden), applied to every patch feature of every crop before merging.
#pragma once

#include <ATen/ATen.h>

#include "engine/weight_source.h"

namespace mineru::engine {

// features: [..., vision hidden]. `weights` is the lease on unit projector.
at::Tensor MmProjector(const at::Tensor& features, const WeightLease& weights);

}  // namespace mineru::engine
