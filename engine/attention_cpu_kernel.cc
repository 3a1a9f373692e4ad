#include "engine/attention_cpu_kernel.h"

#include <ATen/Parallel.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mineru::engine {
namespace {

constexpr int64_t kRowTile = 4;  // query rows whose scores share each key load
constexpr int64_t kRowsPerTask = 16;

// e^x for x <= 0 (scores minus their running maximum); 0 below float's range. Cephes expf: x = n ln2 + r,
// e^r by a degree-6 polynomial, 2^n through the exponent bits.
__attribute__((target("avx2,fma"))) inline __m256 ExpNonPositive(__m256 x) {
  const __m256 underflow = _mm256_cmp_ps(x, _mm256_set1_ps(-87.3f), _CMP_LT_OQ);
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.3f));
  const __m256 n =
      _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
  x = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  x = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), x);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, x, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 y = _mm256_add_ps(_mm256_fmadd_ps(_mm256_mul_ps(p, x), x, x), _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_andnot_ps(underflow, _mm256_mul_ps(y, _mm256_castsi256_ps(e)));
}

// The register tile both products of attention share: acc[r][i] += Σk a[r·lda + k] · b[k·ldb + 8i ..
// 8i + 8] for k < K, R rows of A broadcast against J vectors of B. At 4 × 3, the accumulators, the J
// loads and the broadcast fill the 16 AVX registers.
template <int R, int J>
__attribute__((target("avx2,fma"), always_inline)) inline void AccumulateTile(const float* a, int64_t lda,
                                                                              const float* b, int64_t ldb,
                                                                              int64_t K,
                                                                              __m256 (&acc)[R][J]) {
  for (int64_t k = 0; k < K; ++k) {
    __m256 bv[J];
#pragma GCC unroll 3
    for (int i = 0; i < J; ++i) bv[i] = _mm256_loadu_ps(b + k * ldb + 8 * i);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(a + r * lda + k);
#pragma GCC unroll 3
      for (int i = 0; i < J; ++i) acc[r][i] = _mm256_fmadd_ps(x, bv[i], acc[r][i]);
    }
  }
}

// Scores of R rows against J·8 keys from column j: s[r][j + i] = q_r . k_(j + i).
template <int D, int R, int J>
__attribute__((target("avx2,fma"))) void ScoreTile(const float* q, const float* kt, int64_t kp, int64_t j,
                                                   float* s) {
  __m256 acc[R][J];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int i = 0; i < J; ++i) acc[r][i] = _mm256_setzero_ps();
  AccumulateTile<R, J>(q, D, kt + j, kp, D, acc);
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int i = 0; i < J; ++i) _mm256_storeu_ps(s + r * kp + j + 8 * i, acc[r][i]);
}

// Scores of R rows against the first `width` keys (a multiple of 8).
template <int D, int R>
void Scores(const float* q, const float* kt, int64_t kp, int64_t width, float* s) {
  int64_t j = 0;
  for (; j + 24 <= width; j += 24) ScoreTile<D, R, 3>(q, kt, kp, j, s);
  for (; j < width; j += 8) ScoreTile<D, R, 1>(q, kt, kp, j, s);
}

// One row's online-softmax step: its first `visible` scores (> 0) become e^(s - new max), the rest of
// the first `width` become 0; max and sum are updated. Returns the factor that rescales the row's
// earlier sums (0 on its first block).
__attribute__((target("avx2,fma"))) float SoftmaxStep(float* s, int64_t visible, int64_t width, float* m,
                                                      float* l) {
  const int64_t v8 = visible & ~int64_t{7};
  __m256 max8 = _mm256_set1_ps(-INFINITY);
  for (int64_t j = 0; j < v8; j += 8) max8 = _mm256_max_ps(max8, _mm256_loadu_ps(s + j));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, max8);
  float block_max = -INFINITY;
  for (float x : lanes) block_max = std::max(block_max, x);
  for (int64_t j = v8; j < visible; ++j) block_max = std::max(block_max, s[j]);
  const float new_max = std::max(*m, block_max);
  const float correction = std::exp(*m - new_max);
  const __m256 nm = _mm256_set1_ps(new_max);
  __m256 sum8 = _mm256_setzero_ps();
  for (int64_t j = 0; j < v8; j += 8) {
    const __m256 p = ExpNonPositive(_mm256_sub_ps(_mm256_loadu_ps(s + j), nm));
    _mm256_storeu_ps(s + j, p);
    sum8 = _mm256_add_ps(sum8, p);
  }
  _mm256_store_ps(lanes, sum8);
  float sum = 0;
  for (float x : lanes) sum += x;
  for (int64_t j = v8; j < visible; ++j) {
    s[j] = std::exp(s[j] - new_max);
    sum += s[j];
  }
  std::fill(s + visible, s + width, 0.0f);
  *l = *l * correction + sum;
  *m = new_max;
  return correction;
}

// acc[r] = acc[r] · correction[r] + Σk p[r][k] v[k] over `keys` keys, for R rows and the C vectors of
// head dimensions from d0.
template <int D, int R, int C>
__attribute__((target("avx2,fma"))) void WeightedSumTile(const float* p, int64_t kp, const float* v,
                                                         int64_t keys, const float* correction, float* acc,
                                                         int d0) {
  __m256 a[R][C];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    const __m256 c8 = _mm256_set1_ps(correction[r]);
#pragma GCC unroll 3
    for (int c = 0; c < C; ++c) a[r][c] = _mm256_mul_ps(_mm256_loadu_ps(acc + r * D + d0 + 8 * c), c8);
  }
  AccumulateTile<R, C>(p, kp, v + d0, D, keys, a);
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int c = 0; c < C; ++c) _mm256_storeu_ps(acc + r * D + d0 + 8 * c, a[r][c]);
}

template <int D, int R>
void WeightedSum(const float* p, int64_t kp, const float* v, int64_t keys, const float* correction,
                 float* acc) {
  int d0 = 0;
  for (; d0 + 24 <= D; d0 += 24) WeightedSumTile<D, R, 3>(p, kp, v, keys, correction, acc, d0);
  if (D - d0 == 16) WeightedSumTile<D, R, 2>(p, kp, v, keys, correction, acc, d0);
  if (D - d0 == 8) WeightedSumTile<D, R, 1>(p, kp, v, keys, correction, acc, d0);
}

// R consecutive rows (state index `state` onwards) against the block.
template <int D, int R>
void AttendTile(const AttentionBlockArgs& a, const float* q, const float* kt, const float* v,
                const int64_t* visible, int64_t state, float* s) {
  const int64_t kp = a.keys_padded;
  const int64_t keys = *std::max_element(visible, visible + R);  // the last key any row sees, + 1
  if (keys == 0) return;
  const int64_t width = (keys + 7) / 8 * 8;
  Scores<D, R>(q, kt, kp, width, s);
  float correction[R];
  for (int r = 0; r < R; ++r) {
    if (visible[r] == 0) {  // nothing of this block is visible to the row: its state stays as it is
      std::fill(s + r * kp, s + r * kp + width, 0.0f);
      correction[r] = 1.0f;
    } else {
      correction[r] =
          SoftmaxStep(s + r * kp, visible[r], width, a.running_max + state + r, a.running_sum + state + r);
    }
  }
  WeightedSum<D, R>(s, kp, v, keys, correction, a.acc + state * D);
}

// `head` counts over batch x kv_heads.
template <int D>
void AttendRows(const AttentionBlockArgs& a, int64_t head, int64_t r0, int64_t r1, std::vector<float>& s) {
  const int64_t kp = a.keys_padded;
  s.resize(static_cast<size_t>(kRowTile * kp));
  const float* kt = a.kt + head * D * kp;
  const float* v = a.v + head * a.keys * D;
  const int64_t* q_pos = a.q_pos + head / a.kv_heads * a.rows;
  for (int64_t r = r0; r < r1; r += kRowTile) {
    const int64_t n = std::min(kRowTile, r1 - r);
    const float* q = a.q + (head * a.rows + r) * D;
    const int64_t state = head * a.rows + r;
    int64_t visible[kRowTile];
    for (int64_t i = 0; i < n; ++i)
      visible[i] = std::clamp<int64_t>(q_pos[r + i] - a.key_start + 1, 0, a.keys);
    switch (n) {
      case 4:
        AttendTile<D, 4>(a, q, kt, v, visible, state, s.data());
        break;
      case 3:
        AttendTile<D, 3>(a, q, kt, v, visible, state, s.data());
        break;
      case 2:
        AttendTile<D, 2>(a, q, kt, v, visible, state, s.data());
        break;
      default:
        AttendTile<D, 1>(a, q, kt, v, visible, state, s.data());
    }
  }
}

template <int D>
void AttendAll(const AttentionBlockArgs& a) {
  const int64_t tasks_per_head = (a.rows + kRowsPerTask - 1) / kRowsPerTask;
  at::parallel_for(0, a.batch * a.kv_heads * tasks_per_head, 1, [&](int64_t t0, int64_t t1) {
    std::vector<float> scores;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t head = t / tasks_per_head;
      const int64_t r0 = (t % tasks_per_head) * kRowsPerTask;
      AttendRows<D>(a, head, r0, std::min(r0 + kRowsPerTask, a.rows), scores);
    }
  });
}

}  // namespace

bool CpuAttentionKernelAvailable(int64_t head_dim) {
  static const bool cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return cpu && (head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 72 || head_dim == 128);
}

void AttendKeyBlock(const AttentionBlockArgs& a) {
  switch (a.head_dim) {
    case 16:
      return AttendAll<16>(a);
    case 32:
      return AttendAll<32>(a);
    case 64:
      return AttendAll<64>(a);
    case 72:
      return AttendAll<72>(a);
    default:
      return AttendAll<128>(a);
  }
}

namespace {

template <typename T>
void GatherTyped(const at::Tensor& k_store, const at::Tensor& v_store, const int64_t* slots, int64_t batch,
                 int64_t keys, int64_t kp, float* kt, float* v) {
  const int64_t kvh = k_store.size(1), d = k_store.size(2);
  const T* kb = k_store.data_ptr<T>();
  const T* vb = v_store.data_ptr<T>();
  const int64_t ks0 = k_store.stride(0), ks1 = k_store.stride(1);
  const int64_t vs0 = v_store.stride(0), vs1 = v_store.stride(1);
  at::parallel_for(0, batch * kvh, 1, [&](int64_t h0, int64_t h1) {
    for (int64_t bh = h0; bh < h1; ++bh) {
      const int64_t i = bh / kvh, h = bh % kvh;
      float* ktb = kt + bh * d * kp;
      float* vv = v + bh * keys * d;
      for (int64_t t = 0; t < keys; ++t) {
        const int64_t slot = slots[i * keys + t];
        const T* ks = kb + slot * ks0 + h * ks1;
        const T* vs = vb + slot * vs0 + h * vs1;
        for (int64_t j = 0; j < d; ++j) ktb[j * kp + t] = static_cast<float>(ks[j]);
        for (int64_t j = 0; j < d; ++j) vv[t * d + j] = static_cast<float>(vs[j]);
      }
      for (int64_t j = 0; j < d; ++j) std::fill(ktb + j * kp + keys, ktb + (j + 1) * kp, 0.0f);
    }
  });
}

}  // namespace

void GatherKeyBlock(const at::Tensor& k_store, const at::Tensor& v_store, const int64_t* slots, int64_t batch,
                    int64_t keys, int64_t keys_padded, float* kt, float* v) {
  TORCH_CHECK(k_store.dim() == 3 && k_store.stride(2) == 1 && v_store.sizes() == k_store.sizes() &&
                  v_store.stride(2) == 1 && v_store.scalar_type() == k_store.scalar_type(),
              "GatherKeyBlock: K and V stores [slots, kv_heads, head_dim] with contiguous rows");
  switch (k_store.scalar_type()) {
    case at::kFloat:
      return GatherTyped<float>(k_store, v_store, slots, batch, keys, keys_padded, kt, v);
    case at::kBFloat16:
      return GatherTyped<at::BFloat16>(k_store, v_store, slots, batch, keys, keys_padded, kt, v);
    case at::kHalf:
      return GatherTyped<at::Half>(k_store, v_store, slots, batch, keys, keys_padded, kt, v);
    default:
      TORCH_CHECK(false, "GatherKeyBlock: K/V store dtype ", k_store.scalar_type());
  }
}

FusedAttention::FusedAttention(int64_t batch, int64_t kv_heads, int64_t rows, int64_t head_dim)
    : running_max_(at::full({batch, kv_heads, rows}, -std::numeric_limits<float>::infinity())),
      running_sum_(at::zeros({batch, kv_heads, rows})),
      acc_(at::zeros({batch, kv_heads, rows, head_dim})) {}

void FusedAttention::Attend(const at::Tensor& q, const int64_t* q_pos, const at::Tensor& kt,
                            const at::Tensor& v, int64_t key_start, int64_t keys) {
  AttentionBlockArgs args;
  args.batch = acc_.size(0);
  args.kv_heads = acc_.size(1);
  args.rows = acc_.size(2);
  args.head_dim = acc_.size(3);
  args.q = q.data_ptr<float>();
  args.q_pos = q_pos;
  args.kt = kt.data_ptr<float>();
  args.v = v.data_ptr<float>();
  args.key_start = key_start;
  args.keys = keys;
  args.keys_padded = kt.size(3);
  args.running_max = running_max_.data_ptr<float>();
  args.running_sum = running_sum_.data_ptr<float>();
  args.acc = acc_.data_ptr<float>();
  AttendKeyBlock(args);
}

at::Tensor FusedAttention::Finish() { return acc_.div_(running_sum_.unsqueeze(-1)); }

}  // namespace mineru::engine
