#include "engine/bf16_rows_kernel.h"

#include <ATen/Parallel.h>
#include <immintrin.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mineru::engine {
namespace {

constexpr int64_t kRowBlock = 4;  // the most x rows widening the weight in registers
constexpr int64_t kOutBlock = 3;  // weight rows (outputs) per register tile: 4 x 3 accumulators + 4

// Runs fn(n0, n1) over [0, N) in runs of about N / (4 · threads) outputs (a multiple of `multiple`, at
// most 192), which the threads take in turn as they finish: a thread slowed down (by another program,
// or a core shared in a VM) leaves its remaining runs to the others instead of holding every thread
// at the end of the product.
template <typename Fn>
void ForOutputRuns(int64_t N, int64_t multiple, const Fn& fn) {
  const int64_t threads = at::get_num_threads();
  const int64_t target = std::min<int64_t>(192, (N + 4 * threads - 1) / (4 * threads));
  const int64_t run = std::max<int64_t>(multiple, (target + multiple - 1) / multiple * multiple);
  const int64_t runs = (N + run - 1) / run;
  std::atomic<int64_t> next{0};
  at::parallel_for(0, std::min(threads, runs), 1, [&](int64_t, int64_t) {
    for (int64_t i = next.fetch_add(1); i < runs; i = next.fetch_add(1))
      fn(i * run, std::min(N, (i + 1) * run));
  });
}

float Bf16ToFloat(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

__attribute__((target("avx2,fma"))) inline __m256 Load8(const uint16_t* p) {  // eight bf16, widened
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

__attribute__((target("avx2,fma"))) inline float Sum8(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// R rows of x against C weight rows (bf16 as stored, widened per load) over all of K, the R x C sums in
// registers.
template <int R, int C>
__attribute__((target("avx2,fma"))) void Tile(const float* x, int64_t ldx, const uint16_t* w, int64_t K,
                                              float* out, int64_t ldo) {
  __m256 acc[R][C];  // fully unrolled below, so the sums live in registers
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  const int64_t k8 = K & ~int64_t{7};
  for (int64_t k = 0; k < k8; k += 8) {
    __m256 wv[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) wv[c] = Load8(w + c * K + k);
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
      out[r * ldo + c] = s;
    }
  }
}

template <int R>
void RowsTile(const float* x, int64_t ldx, const uint16_t* w, int64_t K, int64_t outputs, float* out,
              int64_t ldo) {
  switch (outputs) {
    case 3:
      return Tile<R, 3>(x, ldx, w, K, out, ldo);
    case 2:
      return Tile<R, 2>(x, ldx, w, K, out, ldo);
    default:
      return Tile<R, 1>(x, ldx, w, K, out, ldo);
  }
}

// Every row of x (at most kRowBlock) against `outputs` weight rows read as stored.
void AllRows(const float* x, int64_t M, const uint16_t* w, int64_t K, int64_t outputs, float* out,
             int64_t ldo) {
  switch (M) {
    case 4:
      return RowsTile<4>(x, K, w, K, outputs, out, ldo);
    case 3:
      return RowsTile<3>(x, K, w, K, outputs, out, ldo);
    case 2:
      return RowsTile<2>(x, K, w, K, outputs, out, ldo);
    default:
      return RowsTile<1>(x, K, w, K, outputs, out, ldo);
  }
}

// More rows: the roles turn around. A group of weight rows is widened once into a float buffer, and
// each weight element, broadcast, multiplies 8 rows of x at once (x transposed into xt [K, 8·V], zero
// past M). The sums are the outputs themselves: a tile keeps C outputs × 8·V rows in registers over all
// of K, with no horizontal reduction. Widening takes one unpack per 8 values, which interleaves k
// within each 16 ([0-3, 8-11, 4-7, 12-15]); xt is written in the same order, so every weight value
// still meets its own x value.
constexpr int64_t kUnpackOrder[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};

int64_t WidenedPosition(int64_t k, int64_t K) {
  const int64_t k16 = K & ~int64_t{15};
  return k < k16 ? (k & ~int64_t{15}) + kUnpackOrder[k & 15] : k;
}

__attribute__((target("avx2,fma"))) void WidenRowUnpacked(const uint16_t* w, int64_t K, float* dst) {
  const __m256i zero = _mm256_setzero_si256();
  const int64_t k16 = K & ~int64_t{15};
  for (int64_t k = 0; k < k16; k += 16) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + k), _mm256_unpacklo_epi16(zero, v));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + k + 8), _mm256_unpackhi_epi16(zero, v));
  }
  for (int64_t k = k16; k < K; ++k) dst[k] = Bf16ToFloat(w[k]);
}

// C widened weight rows (w, row stride K) against xt; writes out[r, c] for r < M. While it multiplies
// it prefetches `prefetch_bytes` from `prefetch` (the next group's weight rows), a line every 4 k, so
// the next widening finds them in cache.
template <int C, int V>
__attribute__((target("avx2,fma"))) void BroadcastTile(const float* w, int64_t K, const float* xt, int64_t M,
                                                       float* out, int64_t ldo, const char* prefetch,
                                                       int64_t prefetch_bytes) {
  __m256 acc[C][V];
#pragma GCC unroll 12
  for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[c][v] = _mm256_setzero_ps();
  int64_t prefetched = 0;
  for (int64_t k = 0; k < K; ++k) {
    if ((k & 3) == 0 && prefetched < prefetch_bytes) {
      _mm_prefetch(prefetch + prefetched, _MM_HINT_T0);
      prefetched += 64;
    }
    __m256 b[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) b[v] = _mm256_load_ps(xt + (k * V + v) * 8);
#pragma GCC unroll 12
    for (int c = 0; c < C; ++c) {
      const __m256 a = _mm256_broadcast_ss(w + c * K + k);
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
    for (int c = 0; c < C; ++c) out[r * ldo + c] = sums[c][r];
}

// Outputs per broadcast tile: 12 accumulators, V loads and one broadcast in the 16 AVX registers.
template <int V>
constexpr int64_t kBroadcastOutputs = 12 / V;

template <int V>
void BroadcastTiles(const float* w, int64_t K, const float* xt, int64_t M, int64_t outputs, float* out,
                    int64_t ldo, const char* prefetch, int64_t prefetch_bytes) {
  if (outputs == kBroadcastOutputs<V>) {
    return BroadcastTile<kBroadcastOutputs<V>, V>(w, K, xt, M, out, ldo, prefetch, prefetch_bytes);
  }
  for (int64_t c = 0; c < outputs; ++c)  // the last few outputs of a task
    BroadcastTile<1, V>(w + c * K, K, xt, M, out + c, ldo, prefetch, c == 0 ? prefetch_bytes : 0);
}

template <int V>
void BroadcastRows(const float* x, int64_t M, const uint16_t* w, int64_t K, int64_t N, float* out) {
  constexpr int64_t C = kBroadcastOutputs<V>;
  const at::Tensor xt_storage = at::empty({K, 8 * V}, at::kFloat);  // c10 aligns it: aligned loads
  float* xt = xt_storage.data_ptr<float>();
  for (int64_t k = 0; k < K; ++k) {
    float* col = xt + WidenedPosition(k, K) * 8 * V;
    for (int64_t r = 0; r < 8 * V; ++r) col[r] = r < M ? x[r * K + k] : 0.0f;
  }
  ForOutputRuns(N, C, [&](int64_t n0, int64_t n1) {
    thread_local std::vector<float> scratch;
    scratch.resize(C * K);
    for (int64_t n = n0; n < n1; n += C) {
      const int64_t outputs = std::min(C, n1 - n);
      for (int64_t c = 0; c < outputs; ++c) WidenRowUnpacked(w + (n + c) * K, K, scratch.data() + c * K);
      const int64_t next_outputs = std::max<int64_t>(0, std::min(C, n1 - n - C));
      const uint16_t* next = next_outputs > 0 ? w + (n + C) * K : w;
      BroadcastTiles<V>(scratch.data(), K, xt, M, outputs, out + n, N, reinterpret_cast<const char*>(next),
                        next_outputs * K * 2);
    }
  });
}

}  // namespace

bool Bf16RowsKernelAvailable() {
  static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return available;
}

at::Tensor Bf16RowsLinear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  TORCH_CHECK(x.scalar_type() == at::kFloat && x.is_contiguous() && w.scalar_type() == at::kBFloat16 &&
                  w.is_contiguous() && w.size(1) == K,
              "Bf16RowsLinear: x float32 [M, K] and w bfloat16 [N, K], both contiguous");
  TORCH_CHECK(M <= kBf16RowsKernelMaxRows, "Bf16RowsLinear: at most ", kBf16RowsKernelMaxRows, " rows, got ",
              M);
  at::Tensor out = at::empty({M, N}, x.options());
  const float* xp = x.data_ptr<float>();
  const auto* wp = reinterpret_cast<const uint16_t*>(w.data_ptr<at::BFloat16>());
  float* op = out.data_ptr<float>();
  if (M <= kRowBlock) {
    // Each task owns a run of outputs and reads their weight rows from memory once, widened in registers.
    ForOutputRuns(N, kOutBlock, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; n += kOutBlock)
        AllRows(xp, M, wp + n * K, K, std::min(kOutBlock, n1 - n), op + n, N);
    });
  } else if (M <= 8) {
    BroadcastRows<1>(xp, M, wp, K, N, op);
  } else {
    BroadcastRows<2>(xp, M, wp, K, N, op);
  }
  if (bias.defined()) out.add_(bias.to(at::kFloat));
  return out;
}

}  // namespace mineru::engine
