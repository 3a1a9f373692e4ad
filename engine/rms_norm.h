// RMSNorm (Qwen2): y = weight * cast(x * rsqrt(mean(x^2) + eps)), the normalisation in float32.
#pragma once

#include <ATen/ATen.h>

namespace mineru::engine {

at::Tensor RmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps);

}  // namespace mineru::engine
