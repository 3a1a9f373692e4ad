#include "engine/row_invariant_linear.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine/output_runs.h"
#include "engine/row_invariant_tiles.h"
#include "engine/simd_avx2.h"

namespace mineru::engine {
namespace {

// Bytes of x rows a block of rows may take: the block stays in L2 while a run of outputs passes over it.
constexpr int64_t kRowBlockBytes = 256 * 1024;

bool CpuHasAvx512Bf16() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
}

float Bf16ToFloat(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Where one weight's outputs go: out[r, n] = sum + bias[n], stored as float32 or rounded once to
// bfloat16.
struct Sink {
  void* data;
  int64_t ld;
  bool bf16;
  const float* bias;  // null: none (biases are widened to float32 up front)

  void Store(int64_t r, int64_t n, float sum) const {
    if (bias) sum += bias[n];
    if (bf16) {
      static_cast<at::BFloat16*>(data)[r * ld + n] = at::BFloat16(sum);
    } else {
      static_cast<float*>(data)[r * ld + n] = sum;
    }
  }
};

struct Job {
  const char* w;  // [N, K]
  Sink sink;
};

}  // namespace

bool ProductIsaAvailable(ProductIsa isa) {
  switch (isa) {
    case ProductIsa::kAvx512Bf16:
      return CpuHasAvx512Bf16();
    case ProductIsa::kAvx2:
      return simd::CpuHasAvx2();
    case ProductIsa::kPlain:
      return true;
  }
  return false;
}

ProductIsa ChosenProductIsa() {
  static const ProductIsa isa = ProductIsaAvailable(ProductIsa::kAvx512Bf16) ? ProductIsa::kAvx512Bf16
                                : ProductIsaAvailable(ProductIsa::kAvx2)     ? ProductIsa::kAvx2
                                                                             : ProductIsa::kPlain;
  return isa;
}

std::string_view ProductIsaName(ProductIsa isa) {
  switch (isa) {
    case ProductIsa::kAvx512Bf16:
      return "avx512-bf16";
    case ProductIsa::kAvx2:
      return "avx2";
    case ProductIsa::kPlain:
      return "plain";
  }
  return "?";
}

std::vector<at::Tensor> RowInvariantLinears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                            std::span<const at::Tensor> biases, at::ScalarType out_dtype,
                                            ProductIsa isa) {
  TORCH_CHECK(x.dim() == 2 && x.is_contiguous() && x.device().is_cpu() &&
                  (x.scalar_type() == at::kFloat || x.scalar_type() == at::kBFloat16),
              "RowInvariantLinear: x float32 or bfloat16 [M, K] on the CPU, contiguous");
  TORCH_CHECK(out_dtype == at::kFloat || out_dtype == at::kBFloat16,
              "RowInvariantLinear: output float32 or bfloat16");
  TORCH_CHECK(biases.empty() || biases.size() == weights.size(),
              "RowInvariantLinear: one bias (or none) per weight");
  TORCH_CHECK(ProductIsaAvailable(isa), "RowInvariantLinear: this CPU has no ", ProductIsaName(isa));
  const int64_t M = x.size(0), K = x.size(1);
  const bool w_bf16 = weights.empty() || weights[0].scalar_type() == at::kBFloat16;
  std::vector<at::Tensor> outs, kept_biases;
  std::vector<Job> jobs;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < weights.size(); ++i) {
    const at::Tensor& w = weights[i];
    TORCH_CHECK(w.dim() == 2 && w.size(1) == K && w.is_contiguous() && w.device().is_cpu() &&
                    w.scalar_type() == (w_bf16 ? at::kBFloat16 : at::kFloat),
                "RowInvariantLinear: weights [N, K = ", K,
                "] on the CPU, contiguous, all bfloat16 or all float32");
    const int64_t N = w.size(0);
    at::Tensor b = biases.empty() ? at::Tensor() : biases[i];
    TORCH_CHECK(!b.defined() || b.numel() == N, "RowInvariantLinear: bias of ", N, " values");
    if (b.defined()) b = b.to(at::kCPU, at::kFloat).contiguous();
    kept_biases.push_back(b);
    outs.push_back(at::empty({M, N}, x.options().dtype(out_dtype)));
    jobs.push_back({static_cast<const char*>(w.data_ptr()),
                    {outs.back().data_ptr(), N, out_dtype == at::kBFloat16,
                     b.defined() ? b.data_ptr<float>() : nullptr}});
    sizes.push_back(N);
  }
  TORCH_CHECK(x.scalar_type() == at::kFloat || w_bf16,
              "RowInvariantLinear: bfloat16 x needs bfloat16 weights");
  if (M == 0 || K == 0) {
    for (size_t i = 0; i < outs.size(); ++i) {
      outs[i].zero_();
      if (kept_biases[i].defined()) outs[i].add_(kept_biases[i].to(out_dtype));
    }
    return outs;
  }

  // The tile, and x as it reads it: bf16 pairs for AVX512-BF16's dot products, else float32 (bf16
  // widened exactly, once).
  tiles::Tile tile{};
  at::Tensor xs = x;
  if (isa == ProductIsa::kAvx512Bf16 && x.scalar_type() == at::kBFloat16) {
    tile = tiles::Avx512Bf16DotTile();
  } else {
    if (x.scalar_type() == at::kBFloat16) {
      xs = at::empty({M, K}, at::kFloat);
      const auto* xb = static_cast<const uint16_t*>(x.data_ptr());
      float* xw = xs.data_ptr<float>();
      for (int64_t i = 0; i < M * K; ++i) xw[i] = Bf16ToFloat(xb[i]);
    }
    tile = isa == ProductIsa::kAvx512Bf16 ? tiles::Avx512FmaTile(w_bf16)
           : isa == ProductIsa::kAvx2     ? tiles::Avx2FmaTile(w_bf16)
                                          : tiles::PlainTile(w_bf16);
  }
  const char* xp = static_cast<const char*>(xs.data_ptr());
  const int64_t x_row_bytes = K * static_cast<int64_t>(xs.element_size());
  const int64_t w_row_bytes = K * (w_bf16 ? 2 : 4);
  const int64_t row_block =
      std::max<int64_t>(tiles::kTileRows, kRowBlockBytes / x_row_bytes / tiles::kTileRows * tiles::kTileRows);
  const int64_t cols = tile.cols;
  ForOutputRuns(sizes, cols, [&](size_t j, int64_t n0, int64_t n1) {
    const Job& job = jobs[j];
    float sums[tiles::kTileRows * tiles::kMaxTileCols];
    for (int64_t m0 = 0; m0 < M; m0 += row_block) {
      const int64_t m1 = std::min(M, m0 + row_block);
      for (int64_t n = n0; n < n1; n += cols) {
        const int c = static_cast<int>(std::min(cols, n1 - n));
        for (int64_t m = m0; m < m1; m += tiles::kTileRows) {
          const int r = static_cast<int>(std::min<int64_t>(tiles::kTileRows, m1 - m));
          tile.fn(xp + m * x_row_bytes, K, job.w + n * w_row_bytes, K, r, c, sums);
          for (int i = 0; i < r; ++i)
            for (int cc = 0; cc < c; ++cc) job.sink.Store(m + i, n + cc, sums[i * tiles::kMaxTileCols + cc]);
        }
      }
    }
  });
  return outs;
}

at::Tensor RowInvariantLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias,
                              at::ScalarType out_dtype, ProductIsa isa) {
  return RowInvariantLinears(x, std::span<const at::Tensor>(&w, 1), std::span<const at::Tensor>(&bias, 1),
                             out_dtype, isa)[0];
}

}  // namespace mineru::engine
