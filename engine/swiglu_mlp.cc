#include "engine/swiglu_mlp.h"

#include "engine/dense_ops.h"

namespace mineru::engine {

at::Tensor SwigluMlp(const at::Tensor& x, const at::Tensor& gate_w, const at::Tensor& up_w,
                     const at::Tensor& down_w) {
  at::Tensor g = at::silu(Linear(x, gate_w));
  g.mul_(Linear(x, up_w));
  return Linear(g, down_w);
}

}  // namespace mineru::engine
