#include "engine/mm_projector.h"

#include "engine/dense_ops.h"
#include "engine/gelu.h"

namespace mineru::engine {

at::Tensor MmProjector(const at::Tensor& features, const WeightLease& w) {
  at::Tensor h = Linear(features, w.Get("model.mm_projector.0.weight"), w.Get("model.mm_projector.0.bias"));
  h = Gelu(h, "none");  // exact erf form
  return Linear(h, w.Get("model.mm_projector.2.weight"), w.Get("model.mm_projector.2.bias"));
}

}  // namespace mineru::engine
