#include "engine/attention_cpu_kernel.h"

#include <ATen/Parallel.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
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

// Scores of R rows against every (padded) key of the block: s[r][j] = q_r . k_j.
template <int D, int R>
__attribute__((target("avx2,fma"))) void Scores(const float* q, const float* kt, int64_t kp, float* s) {
  for (int64_t j = 0; j < kp; j += 8) {
    __m256 acc[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    for (int d = 0; d < D; ++d) {
      const __m256 k = _mm256_loadu_ps(kt + d * kp + j);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(q + r * D + d), k, acc[r]);
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) _mm256_storeu_ps(s + r * kp + j, acc[r]);
  }
}

// One row: the first `visible` scores in s (the rest are masked) folded into max, sum and acc.
template <int D>
__attribute__((target("avx2,fma"))) void Fold(float* s, int64_t visible, const float* v, float* m, float* l,
                                              float* acc) {
  float block_max = -INFINITY;
  for (int64_t j = 0; j < visible; ++j) block_max = std::max(block_max, s[j]);
  const float new_max = std::max(*m, block_max);
  const float correction = std::exp(*m - new_max);  // 0 for the first block (m = -inf)
  const __m256 nm = _mm256_set1_ps(new_max);
  __m256 sum8 = _mm256_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= visible; j += 8) {
    const __m256 p = ExpNonPositive(_mm256_sub_ps(_mm256_loadu_ps(s + j), nm));
    _mm256_storeu_ps(s + j, p);
    sum8 = _mm256_add_ps(sum8, p);
  }
  float sum = 0;
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum8);
  for (float x : lanes) sum += x;
  for (; j < visible; ++j) {
    s[j] = std::exp(s[j] - new_max);
    sum += s[j];
  }
  *l = *l * correction + sum;
  *m = new_max;
  constexpr int C = D / 8;
  __m256 a[C];
  const __m256 c8 = _mm256_set1_ps(correction);
#pragma GCC unroll 16
  for (int c = 0; c < C; ++c) a[c] = _mm256_mul_ps(_mm256_loadu_ps(acc + 8 * c), c8);
  for (int64_t k = 0; k < visible; ++k) {
    const __m256 p = _mm256_broadcast_ss(s + k);
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) a[c] = _mm256_fmadd_ps(p, _mm256_loadu_ps(v + k * D + 8 * c), a[c]);
  }
#pragma GCC unroll 16
  for (int c = 0; c < C; ++c) _mm256_storeu_ps(acc + 8 * c, a[c]);
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
    switch (n) {
      case 4:
        Scores<D, 4>(q, kt, kp, s.data());
        break;
      case 3:
        Scores<D, 3>(q, kt, kp, s.data());
        break;
      case 2:
        Scores<D, 2>(q, kt, kp, s.data());
        break;
      default:
        Scores<D, 1>(q, kt, kp, s.data());
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = r + i;
      const int64_t visible = std::clamp<int64_t>(q_pos[row] - a.key_start + 1, 0, a.keys);
      if (visible == 0) continue;
      const int64_t state = head * a.rows + row;
      Fold<D>(s.data() + i * kp, visible, v, a.running_max + state, a.running_sum + state, a.acc + state * D);
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
  return cpu && (head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 128);
}

void AttendKeyBlock(const AttentionBlockArgs& a) {
  switch (a.head_dim) {
    case 16:
      return AttendAll<16>(a);
    case 32:
      return AttendAll<32>(a);
    case 64:
      return AttendAll<64>(a);
    default:
      return AttendAll<128>(a);
  }
}

}  // namespace mineru::engine
