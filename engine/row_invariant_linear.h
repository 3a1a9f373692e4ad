// The CPU's dense product whose every output is computed the same way whatever else is computed with
// it: out[m, n] = Σk x[m, k]·w[n, k] (+ bias[n]), where the order in which the K terms of one output
// are summed is fixed by K and the instruction set alone — never by the number of rows M, the row's
// place among them, the number of outputs or how they are split over threads. A row's result is
// therefore the same bit for bit alone (a decode step of one page), among 15 others (a batched decode
// step) or in a 2,048-row prefill chunk; this is what keeps a page's tokens independent of the batch.
//
// The order: the instruction set is chosen once per process (ChosenProductIsa). Each output is summed
// in L lanes, lane j taking the terms k ≡ j (mod L) in increasing k (terms past K read as zero), with
// one rounding per step (a fused multiply-add; AVX512-BF16's dot product adds its two exact products one
// after the other, flushing subnormals), and the lanes are then added in a fixed tree. L is 16 for
// AVX512 (32 k per step in pairs for bf16 · bf16), 8 for AVX2 and for the plain C++ path, whose order
// is AVX2's, so those two agree bit for bit. Products of bf16 values are exact in float32.
//
// Speed comes from tiling, which changes no order: a tile of up to 4 rows x 4 outputs keeps its sums in
// registers over all of K, so each weight load serves 4 rows and each x load 4 outputs; rows are taken
// in blocks that stay in L2 while a run of outputs streams its weight rows once per block; the threads
// share the outputs (output_runs.h).
#pragma once

#include <ATen/ATen.h>

#include <span>
#include <string_view>
#include <vector>

namespace mineru::engine {

enum class ProductIsa { kPlain, kAvx2, kAvx512Bf16 };

// The instruction set this process uses for the product: AVX512 with BF16 (and BW) when the CPU has
// it, else AVX2 with FMA, else plain C++. Decided once; every call uses it.
ProductIsa ChosenProductIsa();
bool ProductIsaAvailable(ProductIsa isa);
std::string_view ProductIsaName(ProductIsa isa);

// x: [M, K] contiguous, bfloat16 or float32; each weight [N_i, K] contiguous, all bfloat16 or all
// float32 (bfloat16 x needs bfloat16 weights); biases: empty or one per weight, each undefined or of
// N_i values (any float dtype). Returns one [M, N_i] result per weight in out_dtype (float32 or
// bfloat16): the float32 sum plus the bias, rounded once. `isa` must be available; tests and the
// benchmark name one, everyone else takes the process's.
std::vector<at::Tensor> RowInvariantLinears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                            std::span<const at::Tensor> biases, at::ScalarType out_dtype,
                                            ProductIsa isa = ChosenProductIsa());

at::Tensor RowInvariantLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias,
                              at::ScalarType out_dtype, ProductIsa isa = ChosenProductIsa());

}  // namespace mineru::engine
