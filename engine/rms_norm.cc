#include "engine/rms_norm.h"

namespace mineru::engine {

at::Tensor RmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  at::Tensor xf = x.to(at::kFloat);
  at::Tensor inv = at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return weight * (xf * inv).to(x.scalar_type());
}

}  // namespace mineru::engine
