// Causal attention over one key block, fused, on the CPU (AVX2/FMA): for every query row the scores
// against the block, the online-softmax update and the weighted sum of the values happen in one pass
// over a small tile in L1/L2, instead of ATen's separate passes over a [heads, rows, block] score
// tensor (a 7.4k-token prefill spent most of its attention time streaming those through memory).
// Arithmetic is float32 throughout, with a vectorised exp (Cephes' polynomial, about 1 ulp).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

namespace mineru::engine {

// Query rows per kv head in one task of the kernel. AttendStored with at most this many rows (a decode
// step) gathers each head's key block into a per-thread buffer just before attending it; with more, it
// gathers every head's block first.
inline constexpr int64_t kAttentionRowsPerTask = 16;

// True when this CPU can run the kernel (AVX2, FMA, F16C) and head_dim is one it is built for (16, 32, 64,
// 128: the decoders; 72: SigLIP's).
bool CpuAttentionKernelAvailable(int64_t head_dim);

// `batch` sequences (a decode step's; 1 for a prefill chunk), each with its own keys: every array below
// has the batch as its outermost dimension.
struct AttentionBlockArgs {
  int64_t batch = 1;
  int64_t kv_heads = 0;
  int64_t rows = 0;  // query rows per kv head (group x queries)
  int64_t head_dim = 0;
  const float* q = nullptr;        // [batch, kv_heads, rows, head_dim], scaled by 1/sqrt(head_dim)
  const int64_t* q_pos = nullptr;  // [batch, rows] absolute position of each row
  const float* kt = nullptr;       // [batch, kv_heads, head_dim, keys_padded] keys transposed, zero-padded
  const float* v = nullptr;        // [batch, kv_heads, keys, head_dim]
  int64_t key_start = 0;           // absolute position of key 0 of the block
  int64_t keys = 0;
  int64_t keys_padded = 0;       // keys rounded up to a multiple of 8
  float* running_max = nullptr;  // [batch, kv_heads, rows], -inf before the first block
  float* running_sum = nullptr;  // [batch, kv_heads, rows], 0 before the first block
  float* acc = nullptr;          // [batch, kv_heads, rows, head_dim], 0 before the first block
};

// Folds one key block into the running state; keys after a row's own position (its future, or another
// sequence's padding) are skipped. Rows go four at a time: a row's unseen keys before the largest
// position any row of its four sees get weight 0, so those keys' values must be finite (they are:
// padding only ever follows a sequence's last key, and a decode step's rows share one position).
void AttendKeyBlock(const AttentionBlockArgs& a);

// The running state of `rows` query rows per (sequence, kv head) over the key blocks of one attention,
// float32 on the CPU, and the blocks folded into it one by one.
class FusedAttention {
 public:
  FusedAttention(int64_t batch, int64_t kv_heads, int64_t rows, int64_t head_dim);
  // One key block (AttendKeyBlock): q [batch, kv_heads, rows, head_dim] scaled, q_pos [batch, rows],
  // kt [batch, kv_heads, head_dim, keys_padded] and v [batch, kv_heads, keys, head_dim], all float32.
  void Attend(const at::Tensor& q, const int64_t* q_pos, const at::Tensor& kt, const at::Tensor& v,
              int64_t key_start, int64_t keys);
  // One key block read from K/V stores by slot (a paged cache's): k_store, v_store [slots, kv_heads,
  // head_dim], float32, bfloat16 or half, the last dimension contiguous; slots [batch, keys]. The keys
  // are widened to float32 and laid out for the kernel on the way: with few rows per head (a decode
  // step) each head's block just before that head attends to it, in a per-thread buffer that stays in
  // cache; with many, every head's block first, once.
  void AttendStored(const at::Tensor& q, const int64_t* q_pos, const at::Tensor& k_store,
                    const at::Tensor& v_store, const int64_t* slots, int64_t key_start, int64_t keys);
  // The attention output [batch, kv_heads, rows, head_dim] (the accumulator, divided in place).
  at::Tensor Finish();

 private:
  AttentionBlockArgs Args(const at::Tensor& q, const int64_t* q_pos, int64_t key_start, int64_t keys);

  at::Tensor running_max_, running_sum_, acc_;
};

}  // namespace mineru::engine
