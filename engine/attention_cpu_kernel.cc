#include "engine/attention_cpu_kernel.h"

#include <ATen/Parallel.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "engine/simd_avx2.h"

namespace mineru::engine {
namespace {

constexpr int64_t kRowTile = 4;  // query rows whose scores share each key load

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
    const __m256 p = simd::ExpNonPositive(_mm256_sub_ps(_mm256_loadu_ps(s + j), nm));
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

// Rows r0 .. r1 of `head` (counted over batch x kv_heads) against that head's key block kt [D, kp], v
// [keys, D].
template <int D>
void AttendRows(const AttentionBlockArgs& a, int64_t head, int64_t r0, int64_t r1, const float* kt,
                const float* v, std::vector<float>& s) {
  const int64_t kp = a.keys_padded;
  s.resize(static_cast<size_t>(kRowTile * kp));
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
  const int64_t tasks_per_head = (a.rows + kAttentionRowsPerTask - 1) / kAttentionRowsPerTask;
  at::parallel_for(0, a.batch * a.kv_heads * tasks_per_head, 1, [&](int64_t t0, int64_t t1) {
    std::vector<float> scores;
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t head = t / tasks_per_head;
      const int64_t r0 = (t % tasks_per_head) * kAttentionRowsPerTask;
      AttendRows<D>(a, head, r0, std::min(r0 + kAttentionRowsPerTask, a.rows),
                    a.kt + head * D * a.keys_padded, a.v + head * a.keys * D, scores);
    }
  });
}

// K/V stores [slots, kv_heads, D] (rows contiguous) and the slots of each sequence's keys in the block.
template <typename T>
struct KeyStores {
  const T* k;
  const T* v;
  int64_t k_slot, k_head, v_slot, v_head;  // strides
  const int64_t* slots;                    // [batch, keys]
};

// One head's key block in the kernel's layout: kt [D, kp] (columns from `keys` on zero), v [keys, D].
// Eight keys at a time, eight dimensions of each widened and transposed in registers.
template <int D, typename T>
__attribute__((target("avx2,f16c"))) void GatherHead(const KeyStores<T>& st, int64_t seq, int64_t h,
                                                     int64_t keys, int64_t kp, float* kt, float* v) {
  const int64_t* slots = st.slots + seq * keys;
  const int64_t k8 = keys & ~int64_t{7};
  for (int64_t t0 = 0; t0 < k8; t0 += 8) {
    const T* rows[8];
    for (int i = 0; i < 8; ++i) rows[i] = st.k + slots[t0 + i] * st.k_slot + h * st.k_head;
    for (int d0 = 0; d0 < D; d0 += 8) {
      __m256 r[8];
      for (int i = 0; i < 8; ++i) r[i] = simd::Load8(rows[i] + d0);
      simd::Transpose8x8(r);
      for (int j = 0; j < 8; ++j) _mm256_storeu_ps(kt + (d0 + j) * kp + t0, r[j]);
    }
  }
  for (int64_t t = k8; t < keys; ++t) {
    const T* row = st.k + slots[t] * st.k_slot + h * st.k_head;
    for (int j = 0; j < D; ++j) kt[j * kp + t] = static_cast<float>(row[j]);
  }
  for (int j = 0; j < D; ++j) std::fill(kt + j * kp + keys, kt + (j + 1) * kp, 0.0f);
  for (int64_t t = 0; t < keys; ++t) {
    const T* row = st.v + slots[t] * st.v_slot + h * st.v_head;
    for (int d0 = 0; d0 < D; d0 += 8) _mm256_storeu_ps(v + t * D + d0, simd::Load8(row + d0));
  }
}

// Every head's key block gathered at once into kt and v (then attended by AttendAll).
template <int D, typename T>
void GatherAll(const AttentionBlockArgs& a, const KeyStores<T>& st, float* kt, float* v) {
  at::parallel_for(0, a.batch * a.kv_heads, 1, [&](int64_t h0, int64_t h1) {
    for (int64_t head = h0; head < h1; ++head) {
      GatherHead<D>(st, head / a.kv_heads, head % a.kv_heads, a.keys, a.keys_padded,
                    kt + head * D * a.keys_padded, v + head * a.keys * D);
    }
  });
}

// Each head's key block gathered into a per-thread buffer that stays in cache and attended at once:
// for few rows per head (a decode step), where gathering every block first would write them all out
// to memory and read them back.
template <int D, typename T>
void GatherAndAttendEach(const AttentionBlockArgs& a, const KeyStores<T>& st) {
  const int64_t per_thread = D * a.keys_padded + a.keys * D;  // kt, then v
  const at::Tensor buffers = at::empty({at::get_num_threads(), per_thread}, at::kFloat);
  at::parallel_for(0, a.batch * a.kv_heads, 1, [&](int64_t h0, int64_t h1) {
    float* kt = buffers.data_ptr<float>() + at::get_thread_num() * per_thread;
    float* v = kt + D * a.keys_padded;
    std::vector<float> scores;
    for (int64_t head = h0; head < h1; ++head) {
      GatherHead<D>(st, head / a.kv_heads, head % a.kv_heads, a.keys, a.keys_padded, kt, v);
      AttendRows<D>(a, head, 0, a.rows, kt, v, scores);
    }
  });
}

// fn(std::integral_constant<int, D>) for the kernel's head size D.
template <typename Fn>
void WithHeadDim(int64_t head_dim, const Fn& fn) {
  switch (head_dim) {
    case 16:
      return fn(std::integral_constant<int, 16>{});
    case 32:
      return fn(std::integral_constant<int, 32>{});
    case 64:
      return fn(std::integral_constant<int, 64>{});
    case 72:
      return fn(std::integral_constant<int, 72>{});
    default:
      return fn(std::integral_constant<int, 128>{});
  }
}

// fn(KeyStores<T>) for the stores' element type.
template <typename Fn>
void WithKeyStores(const at::Tensor& k, const at::Tensor& v, const int64_t* slots, const Fn& fn) {
  auto view = [&](auto* type) {
    using T = std::remove_pointer_t<decltype(type)>;
    return KeyStores<T>{k.data_ptr<T>(), v.data_ptr<T>(), k.stride(0), k.stride(1),
                        v.stride(0),     v.stride(1),     slots};
  };
  switch (k.scalar_type()) {
    case at::kFloat:
      return fn(view(static_cast<float*>(nullptr)));
    case at::kBFloat16:
      return fn(view(static_cast<at::BFloat16*>(nullptr)));
    case at::kHalf:
      return fn(view(static_cast<at::Half*>(nullptr)));
    default:
      TORCH_CHECK(false, "attention: K/V store dtype ", k.scalar_type());
  }
}

}  // namespace

bool CpuAttentionKernelAvailable(int64_t head_dim) {
  return simd::CpuHasAvx2() &&
         (head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 72 || head_dim == 128);
}

void AttendKeyBlock(const AttentionBlockArgs& a) {
  WithHeadDim(a.head_dim, [&](auto d) { AttendAll<decltype(d)::value>(a); });
}

FusedAttention::FusedAttention(int64_t batch, int64_t kv_heads, int64_t rows, int64_t head_dim)
    : running_max_(at::full({batch, kv_heads, rows}, -std::numeric_limits<float>::infinity())),
      running_sum_(at::zeros({batch, kv_heads, rows})),
      acc_(at::zeros({batch, kv_heads, rows, head_dim})) {}

AttentionBlockArgs FusedAttention::Args(const at::Tensor& q, const int64_t* q_pos, int64_t key_start,
                                        int64_t keys) {
  AttentionBlockArgs args;
  args.batch = acc_.size(0);
  args.kv_heads = acc_.size(1);
  args.rows = acc_.size(2);
  args.head_dim = acc_.size(3);
  args.q = q.data_ptr<float>();
  args.q_pos = q_pos;
  args.key_start = key_start;
  args.keys = keys;
  args.keys_padded = (keys + 7) / 8 * 8;
  args.running_max = running_max_.data_ptr<float>();
  args.running_sum = running_sum_.data_ptr<float>();
  args.acc = acc_.data_ptr<float>();
  return args;
}

void FusedAttention::Attend(const at::Tensor& q, const int64_t* q_pos, const at::Tensor& kt,
                            const at::Tensor& v, int64_t key_start, int64_t keys) {
  AttentionBlockArgs args = Args(q, q_pos, key_start, keys);
  TORCH_CHECK(kt.size(3) == args.keys_padded, "FusedAttention: kt has ", kt.size(3), " columns, expected ",
              args.keys_padded);
  args.kt = kt.data_ptr<float>();
  args.v = v.data_ptr<float>();
  AttendKeyBlock(args);
}

void FusedAttention::AttendStored(const at::Tensor& q, const int64_t* q_pos, const at::Tensor& k_store,
                                  const at::Tensor& v_store, const int64_t* slots, int64_t key_start,
                                  int64_t keys) {
  TORCH_CHECK(k_store.dim() == 3 && k_store.stride(2) == 1 && v_store.sizes() == k_store.sizes() &&
                  v_store.stride(2) == 1 && v_store.scalar_type() == k_store.scalar_type() &&
                  k_store.size(1) == acc_.size(1) && k_store.size(2) == acc_.size(3),
              "FusedAttention: K and V stores [slots, kv_heads, head_dim] with contiguous rows");
  AttentionBlockArgs a = Args(q, q_pos, key_start, keys);
  at::Tensor kt, v;  // every head's block, when rows are many (each block then serves many row tasks)
  const bool each = a.rows <= kAttentionRowsPerTask;
  if (!each) {
    kt = at::empty({a.batch, a.kv_heads, a.head_dim, a.keys_padded});
    v = at::empty({a.batch, a.kv_heads, keys, a.head_dim});
    a.kt = kt.data_ptr<float>();
    a.v = v.data_ptr<float>();
  }
  WithKeyStores(k_store, v_store, slots, [&](const auto& stores) {
    WithHeadDim(a.head_dim, [&](auto d) {
      constexpr int D = decltype(d)::value;
      if (each) {
        GatherAndAttendEach<D>(a, stores);
      } else {
        GatherAll<D>(a, stores, kt.data_ptr<float>(), v.data_ptr<float>());
        AttendAll<D>(a);
      }
    });
  });
}

at::Tensor FusedAttention::Finish() { return acc_.div_(running_sum_.unsqueeze(-1)); }

}  // namespace mineru::engine
