// The Qwen2 MLP: down(silu(gate(x)) * up(x)), no biases.
#pragma once

#include <ATen/ATen.h>

namespace mineru::engine {

at::Tensor SwigluMlp(const at::Tensor& x, const at::Tensor& gate_w, const at::Tensor& up_w,
                     const at::Tensor& down_w);

}  // namespace mineru::engine
