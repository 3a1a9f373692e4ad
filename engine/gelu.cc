#include "engine/gelu.h"

#include <ATen/Parallel.h>

#include <algorithm>

namespace mineru::engine {

at::Tensor Gelu(const at::Tensor& x, std::string_view approximate) {
  const c10::string_view mode(approximate.data(), approximate.size());
  if (!x.device().is_cpu() || x.dim() == 0 || x.numel() == 0) return at::gelu(x, mode);
  const at::Tensor xc = x.contiguous();
  const int64_t n = xc.size(-1);
  const int64_t rows = xc.numel() / n;
  const at::Tensor in = xc.view({rows, n});
  at::Tensor out = at::empty_like(in);
  // Inside parallel_for libtorch runs each row's kernel on the calling thread, from the row's start.
  at::parallel_for(0, rows, std::max<int64_t>(1, 16384 / n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      at::Tensor o = out[r];
      at::gelu_out(o, in[r], mode);
    }
  });
  return out.view(x.sizes());
}

}  // namespace mineru::engine
