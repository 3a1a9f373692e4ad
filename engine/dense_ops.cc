#include "engine/dense_ops.h"

#include <atomic>

#include "engine/bf16_rows_kernel.h"
#include "engine/row_invariant_linear.h"

namespace mineru::engine {
namespace {

std::atomic<ProductMode> product_mode{ProductMode::kRowInvariant};

bool WidenOnCpu(const at::Tensor& t) { return t.scalar_type() == at::kBFloat16 && t.device().is_cpu(); }

at::Tensor Widen(const at::Tensor& t) { return t.defined() ? t.to(at::kFloat) : t; }

// Rows of x for a product.
int64_t Rows(const at::Tensor& x) { return x.numel() / std::max<int64_t>(x.size(-1), 1); }

std::vector<int64_t> OutShape(const at::Tensor& x, const at::Tensor& w) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = w.size(0);
  return shape;
}

// The row-invariant product takes x and w when both are on the CPU in float32 or bfloat16 with w's
// dtype x's (float32 weights against bfloat16 x are widened by ATen's own rules elsewhere).
bool RowInvariant(const at::Tensor& x, const at::Tensor& w) {
  const at::ScalarType t = x.scalar_type();
  return GetProductMode() == ProductMode::kRowInvariant && x.device().is_cpu() && w.device().is_cpu() &&
         (t == at::kFloat || t == at::kBFloat16) && w.scalar_type() == t && w.dim() == 2;
}

// kFastest: the few-rows kernel takes the product.
bool FewRows(const at::Tensor& x, const at::Tensor& w) {
  return WidenOnCpu(x) && Rows(x) <= kBf16RowsKernelMaxRows && Bf16RowsKernelAvailable() &&
         w.scalar_type() == at::kBFloat16;
}

// kFastest, CPU bf16 with many rows: the weight is widened a block of outputs at a time, so the float32
// copy stays small (a few MB, not the 0.5 GB a vocabulary-sized head would take) and the GEMM still
// sees a wide matrix.
at::Tensor WidenedLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
  const int64_t k = x.size(-1);
  const int64_t rows = Rows(x);
  const at::Tensor xf = x.reshape({rows, k}).to(at::kFloat);
  const int64_t n = w.size(0);
  at::Tensor out;
  if (n <= kWidenBlockOutputs) {
    out = at::linear(xf, Widen(w), Widen(bias));
  } else {
    out = at::empty({rows, n}, xf.options());
    for (int64_t n0 = 0; n0 < n; n0 += kWidenBlockOutputs) {
      const int64_t nb = std::min(kWidenBlockOutputs, n - n0);
      const at::Tensor b = bias.defined() ? Widen(bias.narrow(0, n0, nb)) : at::Tensor();
      out.narrow(1, n0, nb).copy_(at::linear(xf, Widen(w.narrow(0, n0, nb)), b));
    }
  }
  return out.view(OutShape(x, w)).to(at::kBFloat16);
}

}  // namespace

void SetProductMode(ProductMode mode) { product_mode.store(mode); }

ProductMode GetProductMode() { return product_mode.load(); }

at::Tensor Linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
  return Linears(x, std::span<const at::Tensor>(&w, 1), std::span<const at::Tensor>(&bias, 1))[0];
}

std::vector<at::Tensor> Linears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                std::span<const at::Tensor> biases) {
  std::vector<at::Tensor> outs;
  bool invariant = !weights.empty(), few_rows = !weights.empty();
  for (const at::Tensor& w : weights) {
    invariant = invariant && RowInvariant(x, w);
    few_rows = few_rows && FewRows(x, w) && w.is_contiguous();
  }
  if (invariant || few_rows) {
    const at::Tensor x2 = x.reshape({Rows(x), x.size(-1)}).contiguous();
    std::vector<at::Tensor> ws;
    for (const at::Tensor& w : weights) ws.push_back(w.contiguous());
    outs = invariant ? RowInvariantLinears(x2, ws, biases, x.scalar_type())
                     : Bf16RowsLinears(x2, ws, biases, at::kBFloat16);
    for (size_t i = 0; i < outs.size(); ++i) outs[i] = outs[i].view(OutShape(x, weights[i]));
    return outs;
  }
  for (size_t i = 0; i < weights.size(); ++i) {
    const at::Tensor bias = biases.empty() ? at::Tensor() : biases[i];
    outs.push_back(WidenOnCpu(x) ? WidenedLinear(x, weights[i], bias) : at::linear(x, weights[i], bias));
  }
  return outs;
}

at::Tensor Matmul(const at::Tensor& a, const at::Tensor& b) {
  if (!WidenOnCpu(a)) return at::matmul(a, b);
  return at::matmul(Widen(a), Widen(b)).to(at::kBFloat16);
}

at::Tensor Conv2d(const at::Tensor& input, const at::Tensor& w, const at::Tensor& bias, int64_t stride) {
  const at::Tensor wm = w.dim() == 4 ? w.reshape({w.size(0), -1}) : w;
  if (input.dim() == 4 && w.dim() == 4 && w.size(2) == stride && w.size(3) == stride &&
      input.size(1) == w.size(1) && RowInvariant(input, wm)) {
    // Patches as rows: [B, C, H, W] -> [B, H/p, W/p, C·p·p] (in the weight's C, kh, kw order); a
    // border narrower than a patch is dropped, as the convolution drops it.
    const int64_t b = input.size(0), c = input.size(1), p = stride;
    const int64_t sh = input.size(2) / p, sw = input.size(3) / p;
    const at::Tensor patches = input.narrow(2, 0, sh * p)
                                   .narrow(3, 0, sw * p)
                                   .reshape({b, c, sh, p, sw, p})
                                   .permute({0, 2, 4, 1, 3, 5})
                                   .reshape({b * sh * sw, c * p * p});
    return Linear(patches, wm, bias).view({b, sh, sw, w.size(0)}).permute({0, 3, 1, 2});
  }
  if (!WidenOnCpu(input)) return at::conv2d(input, w, bias, {stride, stride});
  return at::conv2d(Widen(input), Widen(w), Widen(bias), {stride, stride}).to(at::kBFloat16);
}

}  // namespace mineru::engine
