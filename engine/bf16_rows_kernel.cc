#include "engine/bf16_rows_kernel.h"

#include <ATen/Parallel.h>
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "engine/output_runs.h"
#include "engine/simd_avx2.h"

namespace mineru::engine {
namespace {

constexpr int64_t kRowBlock = 4;  // the most x rows widening the weight in registers
constexpr int64_t kOutBlock = 3;  // weight rows (outputs) per register tile: 4 x 3 accumulators + 4

float Bf16ToFloat(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Where one weight's outputs go: out[r, n] = sum + bias[n], stored as float32 or rounded once to
// bfloat16.
struct OutputSink {
  void* data;
  int64_t ld;
  bool bf16;
  const void* bias;  // null: none
  bool bias_bf16;    // else float32

  void Store(int64_t r, int64_t n, float sum) const {
    if (bias) {
      sum +=
          bias_bf16 ? Bf16ToFloat(static_cast<const uint16_t*>(bias)[n]) : static_cast<const float*>(bias)[n];
    }
    if (bf16) {
      static_cast<at::BFloat16*>(data)[r * ld + n] = at::BFloat16(sum);
    } else {
      static_cast<float*>(data)[r * ld + n] = sum;
    }
  }
};

// One weight of a product: its rows (bf16 as stored) and where its outputs go. How many rows it has
// is the product's `sizes` entry.
struct WeightJob {
  const uint16_t* w;
  OutputSink sink;
};

__attribute__((target("avx2,fma"))) inline float Sum8(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// R rows of x against C weight rows (bf16 as stored, widened per load) over all of K, the R x C sums in
// registers.
template <int R, int C>
__attribute__((target("avx2,fma"))) void Tile(const float* x, int64_t ldx, const uint16_t* w, int64_t K,
                                              const OutputSink& out, int64_t n0) {
  __m256 acc[R][C];  // fully unrolled below, so the sums live in registers
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  const int64_t k8 = K & ~int64_t{7};
  for (int64_t k = 0; k < k8; k += 8) {
    __m256 wv[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) wv[c] = simd::Load8(w + c * K + k);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_loadu_ps(x + r * ldx + k);
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) acc[r][c] = _mm256_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      float s = Sum8(acc[r][c]);
      for (int64_t k = k8; k < K; ++k) s += x[r * ldx + k] * Bf16ToFloat(w[c * K + k]);
      out.Store(r, n0 + c, s);
    }
  }
}

template <int R>
void RowsTile(const float* x, int64_t ldx, const uint16_t* w, int64_t K, int64_t outputs,
              const OutputSink& out, int64_t n0) {
  switch (outputs) {
    case 3:
      return Tile<R, 3>(x, ldx, w, K, out, n0);
    case 2:
      return Tile<R, 2>(x, ldx, w, K, out, n0);
    default:
      return Tile<R, 1>(x, ldx, w, K, out, n0);
  }
}

// Every row of x (at most kRowBlock) against `outputs` weight rows read as stored, from output n0.
void AllRows(const float* x, int64_t M, const uint16_t* w, int64_t K, int64_t outputs, const OutputSink& out,
             int64_t n0) {
  switch (M) {
    case 4:
      return RowsTile<4>(x, K, w, K, outputs, out, n0);
    case 3:
      return RowsTile<3>(x, K, w, K, outputs, out, n0);
    case 2:
      return RowsTile<2>(x, K, w, K, outputs, out, n0);
    default:
      return RowsTile<1>(x, K, w, K, outputs, out, n0);
  }
}

// More rows: the roles turn around. Each weight element, broadcast, multiplies 8 rows of x at once (x
// transposed into xt [K, 8·V], zero past M). The sums are the outputs themselves: a tile keeps C outputs
// × 8·V rows in registers over all of K, with no horizontal reduction. The weight is read as stored:
// the broadcast takes the 32 bits that end with element k (elements k-1 and k) and a mask keeps the
// upper half, which is element k as a float32 exactly. No widened copy is written or read back.

// Eight rows of x (rows from `rows` on read as zero) into xt: row r, column k goes to xt[k · ld + r].
// Eight k at a time, transposed in registers.
__attribute__((target("avx2"))) void TransposeRows(const float* x, int64_t rows, int64_t K, float* xt,
                                                   int64_t ld) {
  const int64_t k8 = K & ~int64_t{7};
  for (int64_t k0 = 0; k0 < k8; k0 += 8) {
    __m256 v[8];
    for (int64_t i = 0; i < 8; ++i) v[i] = i < rows ? _mm256_loadu_ps(x + i * K + k0) : _mm256_setzero_ps();
    simd::Transpose8x8(v);
    for (int64_t j = 0; j < 8; ++j) _mm256_storeu_ps(xt + (k0 + j) * ld, v[j]);
  }
  for (int64_t k = k8; k < K; ++k) {
    for (int64_t i = 0; i < 8; ++i) xt[k * ld + i] = i < rows ? x[i * K + k] : 0.0f;
  }
}

// Weight element p[0] broadcast as float32: the 32 bits at p - 1 hold it in their upper half.
__attribute__((target("avx2"), always_inline)) inline __m256 BroadcastBf16(const uint16_t* p, __m256 upper) {
  float pair;
  std::memcpy(&pair, p - 1, sizeof pair);
  return _mm256_and_ps(_mm256_set1_ps(pair), upper);
}

// C weight rows (w, row stride K) against xt; writes out[r, c] for r < M. While it multiplies it
// prefetches `prefetch_bytes` from `prefetch` (the next group's weight rows), a line every 4 k.
template <int C, int V>
__attribute__((target("avx2,fma"))) void BroadcastTile(const uint16_t* w, int64_t K, const float* xt,
                                                       int64_t M, const OutputSink& out, int64_t n0,
                                                       const char* prefetch, int64_t prefetch_bytes) {
  __m256 acc[C][V];
  {  // k = 0: the element before a row may lie outside the weight
    __m256 b[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) b[v] = _mm256_load_ps(xt + v * 8);
#pragma GCC unroll 12
    for (int c = 0; c < C; ++c) {
      const __m256 a = _mm256_set1_ps(Bf16ToFloat(w[c * K]));
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[c][v] = _mm256_mul_ps(a, b[v]);
    }
  }
  const __m256 upper = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int32_t>(0xFFFF0000u)));
  int64_t prefetched = 0;
  for (int64_t k = 1; k < K; ++k) {
    if ((k & 3) == 0 && prefetched < prefetch_bytes) {
      _mm_prefetch(prefetch + prefetched, _MM_HINT_T0);
      prefetched += 64;
    }
    __m256 b[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) b[v] = _mm256_load_ps(xt + (k * V + v) * 8);
#pragma GCC unroll 12
    for (int c = 0; c < C; ++c) {
      const __m256 a = BroadcastBf16(w + c * K + k, upper);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[c][v] = _mm256_fmadd_ps(a, b[v], acc[c][v]);
    }
  }
  alignas(32) float sums[C][8 * V];
#pragma GCC unroll 12
  for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm256_store_ps(&sums[c][8 * v], acc[c][v]);
  for (int64_t r = 0; r < M; ++r)
    for (int c = 0; c < C; ++c) out.Store(r, n0 + c, sums[c][r]);
}

// Outputs per broadcast tile: 12 accumulators, V loads, one broadcast and the mask in the 16 AVX
// registers.
template <int V>
constexpr int64_t kBroadcastOutputs = 12 / V;

template <int V>
void BroadcastTiles(const uint16_t* w, int64_t K, const float* xt, int64_t M, int64_t outputs,
                    const OutputSink& out, int64_t n0, const char* prefetch, int64_t prefetch_bytes) {
  if (outputs == kBroadcastOutputs<V>) {
    return BroadcastTile<kBroadcastOutputs<V>, V>(w, K, xt, M, out, n0, prefetch, prefetch_bytes);
  }
  for (int64_t c = 0; c < outputs; ++c)  // the last few outputs of a task
    BroadcastTile<1, V>(w + c * K, K, xt, M, out, n0 + c, prefetch, c == 0 ? prefetch_bytes : 0);
}

template <int V>
void BroadcastRows(const float* x, int64_t M, int64_t K, std::span<const WeightJob> jobs,
                   std::span<const int64_t> sizes) {
  constexpr int64_t C = kBroadcastOutputs<V>;
  const at::Tensor xt_storage = at::empty({K, 8 * V}, at::kFloat);  // c10 aligns it: aligned loads
  float* xt = xt_storage.data_ptr<float>();
  for (int64_t r0 = 0; r0 < 8 * V; r0 += 8) TransposeRows(r0 < M ? x + r0 * K : x, M - r0, K, xt + r0, 8 * V);
  ForOutputRuns(sizes, C, [&](size_t j, int64_t n0, int64_t n1) {
    const uint16_t* w = jobs[j].w;
    for (int64_t n = n0; n < n1; n += C) {
      const int64_t outputs = std::min(C, n1 - n);
      const int64_t next_outputs = std::max<int64_t>(0, std::min(C, n1 - n - C));
      const uint16_t* next = next_outputs > 0 ? w + (n + C) * K : w;
      BroadcastTiles<V>(w + n * K, K, xt, M, outputs, jobs[j].sink, n, reinterpret_cast<const char*>(next),
                        next_outputs * K * 2);
    }
  });
}

}  // namespace

bool Bf16RowsKernelAvailable() { return simd::CpuHasAvx2(); }

std::vector<at::Tensor> Bf16RowsLinears(const at::Tensor& x, std::span<const at::Tensor> weights,
                                        std::span<const at::Tensor> biases, at::ScalarType out_dtype) {
  TORCH_CHECK(x.dim() == 2 && x.is_contiguous() &&
                  (x.scalar_type() == at::kFloat || x.scalar_type() == at::kBFloat16),
              "Bf16RowsLinear: x float32 or bfloat16 [M, K], contiguous");
  TORCH_CHECK(out_dtype == at::kFloat || out_dtype == at::kBFloat16,
              "Bf16RowsLinear: output float32 or bfloat16");
  TORCH_CHECK(biases.empty() || biases.size() == weights.size(),
              "Bf16RowsLinear: one bias (or none) per weight");
  const int64_t M = x.size(0), K = x.size(1);
  TORCH_CHECK(M <= kBf16RowsKernelMaxRows, "Bf16RowsLinear: at most ", kBf16RowsKernelMaxRows, " rows, got ",
              M);
  std::vector<at::Tensor> outs, kept_biases;
  std::vector<WeightJob> jobs;
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < weights.size(); ++i) {
    const at::Tensor& w = weights[i];
    TORCH_CHECK(w.scalar_type() == at::kBFloat16 && w.is_contiguous() && w.dim() == 2 && w.size(1) == K,
                "Bf16RowsLinear: w bfloat16 [N, K], contiguous, K = ", K);
    const int64_t N = w.size(0);
    at::Tensor b = biases.empty() ? at::Tensor() : biases[i];
    TORCH_CHECK(!b.defined() || b.numel() == N, "Bf16RowsLinear: bias of ", N, " values");
    if (b.defined() && (b.scalar_type() != at::kBFloat16 || !b.is_contiguous()))
      b = b.to(at::kFloat).contiguous();
    kept_biases.push_back(b);
    outs.push_back(at::empty({M, N}, x.options().dtype(out_dtype)));
    jobs.push_back({reinterpret_cast<const uint16_t*>(w.data_ptr<at::BFloat16>()),
                    {outs.back().data_ptr(), N, out_dtype == at::kBFloat16,
                     b.defined() ? b.data_ptr() : nullptr, b.defined() && b.scalar_type() == at::kBFloat16}});
    sizes.push_back(N);
  }
  at::Tensor widened_x = x;  // x as float32
  if (x.scalar_type() == at::kBFloat16) {
    widened_x = at::empty({M, K}, at::kFloat);
    const auto* xb = reinterpret_cast<const uint16_t*>(x.data_ptr<at::BFloat16>());
    float* xw = widened_x.data_ptr<float>();
    for (int64_t i = 0; i < M * K; ++i) xw[i] = Bf16ToFloat(xb[i]);
  }
  const float* xp = widened_x.data_ptr<float>();
  if (M <= kRowBlock) {
    // Each task owns a run of outputs and reads their weight rows from memory once, widened in registers.
    ForOutputRuns(sizes, kOutBlock, [&](size_t j, int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; n += kOutBlock)
        AllRows(xp, M, jobs[j].w + n * K, K, std::min(kOutBlock, n1 - n), jobs[j].sink, n);
    });
  } else if (M <= 8) {
    BroadcastRows<1>(xp, M, K, jobs, sizes);
  } else {
    BroadcastRows<2>(xp, M, K, jobs, sizes);
  }
  return outs;
}

at::Tensor Bf16RowsLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias,
                          at::ScalarType out_dtype) {
  return Bf16RowsLinears(x, std::span<const at::Tensor>(&w, 1), std::span<const at::Tensor>(&bias, 1),
                         out_dtype)[0];
}

}  // namespace mineru::engine
