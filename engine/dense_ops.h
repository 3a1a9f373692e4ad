// The model's dense products — Linear, Matmul and the patch Conv2d — in one place. On a GPU they are
// ATen's own. On the CPU, by default (ProductMode::kRowInvariant), Linear, Linears and Conv2d are the
// row-invariant product (row_invariant_linear.h): every output's sum runs in one fixed order whatever
// else shares the call, so a row's result — a page's next token — does not depend on how many rows or
// sequences a step holds, the prefill chunk, or the threads. bf16 is computed the way a GPU's bf16 GEMM
// defines it (bf16 operands, float32 sums, one rounding); float32 with float32 sums.
//
// ProductMode::kFastest (opt-in, process-wide; the benchmark measures it) restores the earlier CPU
// paths, whose results depend on the row count: the few-rows kernel (bf16_rows_kernel.h, ≤ 16 rows, one
// path up to 4 rows and another from 5), else the operands widened to float32 for libtorch's GEMM, and
// libtorch's own float32 products. Matmul (the vision tower's attention where the fused kernel does not
// serve the head size) is ATen's in both modes: its rows never mix crops.
#pragma once

#include <ATen/ATen.h>

#include <span>
#include <vector>

namespace mineru::engine {

enum class ProductMode { kRowInvariant, kFastest };

// The mode every later product on the CPU uses; kRowInvariant unless set.
void SetProductMode(ProductMode mode);
ProductMode GetProductMode();

// Outputs per widened weight block of a kFastest CPU bf16 Linear with many rows (see Linear).
inline constexpr int64_t kWidenBlockOutputs = 2048;

// x [..., K] · w[N, K]ᵀ (+ bias [N]) -> [..., N], in x's dtype.
at::Tensor Linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias = {});

// Linear of x with each weight (and its bias: `biases` is empty or has one per weight, each possibly
// undefined), the same values as one Linear each; on the CPU computed in one pass (x laid out once, one
// queue of outputs for all threads).
std::vector<at::Tensor> Linears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                std::span<const at::Tensor> biases = {});

// at::matmul's semantics (batched, broadcasting), in a's dtype.
at::Tensor Matmul(const at::Tensor& a, const at::Tensor& b);

// at::conv2d(input, w, bias, stride) without padding or dilation, in input's dtype. On the CPU in the
// row-invariant mode with stride equal to the kernel size (a patch embedding), each patch is a row of
// the row-invariant product.
at::Tensor Conv2d(const at::Tensor& input, const at::Tensor& w, const at::Tensor& bias, int64_t stride);

}  // namespace mineru::engine
