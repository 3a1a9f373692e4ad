// A matrix product for few rows against a bfloat16 weight, on the CPU: out[m, n] = Σk x[m, k]·w[n, k]
// (+ bias[n]), x float32 or bfloat16, out float32 or rounded once to bfloat16, w bfloat16 read as it is
// stored. This is a decode step's product: its time is the time to stream the weight from memory (and,
// at 16 rows, to multiply), so the weight is read once, at two bytes an element, widened exactly in
// registers (up to 4 rows eight elements at a time; from 5 rows one element at a time, broadcast to 8
// rows of x) and multiplied with float32 sums. The products are exact (a bfloat16 times a bfloat16-valued
// float32 fits in float32), as in a float32 GEMM on widened operands.
#pragma once

#include <ATen/ATen.h>

#include <span>
#include <vector>

namespace mineru::engine {

// The most rows the kernel is used for (a decode batch); more rows reuse each weight enough that
// widening it and calling float32 GEMM wins. Measured on a 2-core AVX2 machine (Zen 3) over the 24
// decoder layers and the head of MinerU 2.0: 1 row 14–20 GB/s of weight; 16 rows 142–151 GFLOP/s (the
// machine's speed varies).
inline constexpr int64_t kBf16RowsKernelMaxRows = 16;

// True when this CPU has the instructions the kernel needs (simd::CpuHasAvx2: AVX2, FMA, F16C).
bool Bf16RowsKernelAvailable();

// x: float32 or bfloat16 [M, K] contiguous; w: bfloat16 [N, K] contiguous; bias: undefined or [N].
// Returns [M, N] in out_dtype (float32 or bfloat16): each output is its float32 sum plus the bias,
// rounded once. Requires Bf16RowsKernelAvailable().
at::Tensor Bf16RowsLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias,
                          at::ScalarType out_dtype = at::kFloat);

// Several weights against the same x (a layer's q/k/v or gate/up projections) in one pass: x is laid
// out once and the threads share one queue of outputs. biases: empty, or one per weight (each may be
// undefined). One result per weight.
std::vector<at::Tensor> Bf16RowsLinears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                        std::span<const at::Tensor> biases, at::ScalarType out_dtype);

}  // namespace mineru::engine
