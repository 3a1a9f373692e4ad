#include "engine/dense_ops.h"

#include "engine/bf16_rows_kernel.h"

namespace mineru::engine {
namespace {

bool WidenOnCpu(const at::Tensor& t) { return t.scalar_type() == at::kBFloat16 && t.device().is_cpu(); }

at::Tensor Widen(const at::Tensor& t) { return t.defined() ? t.to(at::kFloat) : t; }

// Rows of x for a product, and whether the few-rows kernel takes them.
int64_t Rows(const at::Tensor& x) { return x.numel() / std::max<int64_t>(x.size(-1), 1); }

bool FewRows(const at::Tensor& x, const at::Tensor& w) {
  return WidenOnCpu(x) && Rows(x) <= kBf16RowsKernelMaxRows && Bf16RowsKernelAvailable() &&
         w.scalar_type() == at::kBFloat16;
}

std::vector<int64_t> OutShape(const at::Tensor& x, const at::Tensor& w) {
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = w.size(0);
  return shape;
}

}  // namespace

at::Tensor Linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
  if (!WidenOnCpu(x)) return at::linear(x, w, bias);
  const int64_t k = x.size(-1);
  const int64_t rows = Rows(x);
  if (FewRows(x, w)) {
    return Bf16RowsLinear(x.reshape({rows, k}).contiguous(), w.contiguous(), bias, at::kBFloat16)
        .view(OutShape(x, w));
  }
  // The weight is widened a block of outputs at a time, so the float32 copy stays small (a few MB,
  // not the 0.5 GB a vocabulary-sized head would take) and the GEMM still sees a wide matrix.
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

std::vector<at::Tensor> Linears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                std::span<const at::Tensor> biases) {
  bool one_pass = !weights.empty();
  for (const at::Tensor& w : weights) one_pass = one_pass && FewRows(x, w) && w.is_contiguous();
  std::vector<at::Tensor> outs;
  if (one_pass) {
    outs = Bf16RowsLinears(x.reshape({Rows(x), x.size(-1)}).contiguous(), weights, biases, at::kBFloat16);
    for (size_t i = 0; i < outs.size(); ++i) outs[i] = outs[i].view(OutShape(x, weights[i]));
    return outs;
  }
  for (size_t i = 0; i < weights.size(); ++i)
    outs.push_back(Linear(x, weights[i], biases.empty() ? at::Tensor() : biases[i]));
  return outs;
}

at::Tensor Matmul(const at::Tensor& a, const at::Tensor& b) {
  if (!WidenOnCpu(a)) return at::matmul(a, b);
  return at::matmul(Widen(a), Widen(b)).to(at::kBFloat16);
}

at::Tensor Conv2d(const at::Tensor& input, const at::Tensor& w, const at::Tensor& bias, int64_t stride) {
  if (!WidenOnCpu(input)) return at::conv2d(input, w, bias, {stride, stride});
  return at::conv2d(Widen(input), Widen(w), Widen(bias), {stride, stride}).to(at::kBFloat16);
}

}  // namespace mineru::engine
