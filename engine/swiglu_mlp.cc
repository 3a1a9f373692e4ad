#include "engine/swiglu_mlp.h"

namespace mineru::engine {

at::Tensor SwigluMlp(const at::Tensor& x, const at::Tensor& gate_w, const at::Tensor& up_w,
                     const at::Tensor& down_w) {
  at::Tensor g = at::silu(at::linear(x, gate_w));
  g.mul_(at::linear(x, up_w));
  return at::linear(g, down_w);
}

}  // namespace mineru::engine
