// The model's dense products — Linear, Matmul and the patch Conv2d — in one place, so each runs the
// fastest exact way the device offers. On a GPU, or in float32, they are ATen's own. On a CPU in
// bfloat16 they are computed the way a GPU's bf16 GEMM defines them: bfloat16 operands, products and
// sums in float32, the result rounded to bfloat16 once. libtorch's own CPU bf16 GEMM does the same
// arithmetic some 50× slower on a CPU without AVX512-BF16 (1.6 against 90 GFLOP/s here), so the
// operands are widened to float32 (exactly) and float32 GEMM does the work; with few rows (a decode
// step) the weight is read as bfloat16 by bf16_rows_kernel.h instead of being widened first.
#pragma once

#include <ATen/ATen.h>

#include <span>
#include <vector>

namespace mineru::engine {

// Outputs per widened weight block of a CPU bf16 Linear with many rows (see Linear).
inline constexpr int64_t kWidenBlockOutputs = 2048;

// x [..., K] · w[N, K]ᵀ (+ bias [N]) -> [..., N], in x's dtype.
at::Tensor Linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias = {});

// Linear of x with each weight (and its bias: `biases` is empty or has one per weight, each possibly
// undefined), the same values as one Linear each; on a CPU in bfloat16 with few rows, computed in one
// pass of the few-rows kernel (x laid out once, one queue of outputs for all threads).
std::vector<at::Tensor> Linears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                std::span<const at::Tensor> biases = {});

// at::matmul's semantics (batched, broadcasting), in a's dtype.
at::Tensor Matmul(const at::Tensor& a, const at::Tensor& b);

// at::conv2d(input, w, bias, stride) without padding or dilation, in input's dtype.
at::Tensor Conv2d(const at::Tensor& input, const at::Tensor& w, const at::Tensor& bias, int64_t stride);

}  // namespace mineru::engine
