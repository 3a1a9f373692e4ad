// GELU (exact erf form, or the tanh approximation) for the vision tower and projector. On the CPU it
// runs row by row (over the last dimension): libtorch's elementwise kernels split a tensor over the
// threads at element offsets that depend on its size, and an element takes the vector or the scalar
// code (which may differ in the last bit) by where its thread's range ends. Row by row, that depends on
// the element's column alone, so a crop's features do not depend on the crops encoded with it.
#pragma once

#include <ATen/ATen.h>

#include <string_view>

namespace mineru::engine {

// approximate: "none" (erf) or "tanh", as at::gelu.
at::Tensor Gelu(const at::Tensor& x, std::string_view approximate);

}  // namespace mineru::engine
