// A matrix product for few rows against a bfloat16 weight, on the CPU: out[m, n] = Σk x[m, k]·w[n, k]
// (+ bias[n]), x and out float32, w bfloat16 read as it is stored. This is a decode step's product:
// its time is the time to stream the weight from memory (and, at 16 rows, to multiply), so the weight
// is read once, at two bytes an element, widened exactly (in registers up to 4 rows; from 5 rows a few
// weight rows at a time into a small buffer that all rows share) and multiplied with float32 sums. The
// products are exact (a bfloat16 times a bfloat16-valued float32 fits in float32), as in a float32 GEMM on
// widened operands.
#pragma once

#include <ATen/ATen.h>

namespace mineru::engine {

// The most rows the kernel is used for (a decode batch); more rows reuse each weight enough that
// widening it and calling float32 GEMM wins. Measured on a 2-core AVX2 machine (Zen 3) over the 24
// decoder layers and the head of MinerU 2.0: 1 row 14–20 GB/s of weight; 16 rows 142–151 GFLOP/s (the
// machine's speed varies).
inline constexpr int64_t kBf16RowsKernelMaxRows = 16;

// True when this CPU has the instructions the kernel needs (AVX2 and FMA).
bool Bf16RowsKernelAvailable();

// x: float32 [M, K] contiguous; w: bfloat16 [N, K] contiguous; bias: undefined or float32 [N]
// contiguous. Returns float32 [M, N]. Requires Bf16RowsKernelAvailable().
at::Tensor Bf16RowsLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias);

}  // namespace mineru::engine
