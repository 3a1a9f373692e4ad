#include "engine/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/attention_cpu_kernel.h"

namespace mineru::engine {

namespace {

// Attention through the fused CPU kernel (attention_cpu_kernel.h) for B sequences: queries qg
// [B, kvh, rows, d] (scaled), row_pos [B * rows], keys 0 .. lengths[i] - 1 of seqs[i]. The same key
// blocks and online softmax as the ATen path, without materialising scores. Returns [B, kvh, rows, d].
at::Tensor FusedCpuAttention(const at::Tensor& qg, const std::vector<int64_t>& row_pos,
                             const PagedKvCache& cache, int64_t layer,
                             std::span<const KvSequence* const> seqs, const std::vector<int64_t>& lengths,
                             const AttentionShape& s) {
  const int64_t batch = qg.size(0);
  const int64_t rows = qg.size(2);
  FusedAttention attention(batch, s.num_kv_heads, rows, s.head_dim);
  const int64_t last = *std::max_element(lengths.begin(), lengths.end());
  for (int64_t kb = 0; kb < last; kb += s.key_block_tokens) {
    const int64_t ke = std::min(kb + s.key_block_tokens, last);
    const std::vector<int64_t> slots = cache.PaddedSlots(seqs, lengths, kb, ke);
    attention.AttendStored(qg, row_pos.data(), cache.keys(layer), cache.values(layer), slots.data(), kb,
                           ke - kb);
  }
  return attention.Finish();
}

bool UseFusedCpu(const at::Tensor& q, const AttentionShape& s) {
  return q.device().is_cpu() && CpuAttentionKernelAvailable(s.head_dim);
}

}  // namespace

at::Tensor PagedAttention(const at::Tensor& q, int64_t start, const PagedKvCache& cache, int64_t layer,
                          const KvSequence& seq, const AttentionShape& s) {
  const int64_t n = q.size(0);
  if (UseFusedCpu(q, s)) {
    const int64_t group = s.num_heads / s.num_kv_heads;
    const at::Tensor qg = (q.to(at::kFloat) * (1.0 / std::sqrt(static_cast<double>(s.head_dim))))
                              .view({1, n, s.num_kv_heads, group, s.head_dim})
                              .permute({0, 2, 3, 1, 4})
                              .reshape({1, s.num_kv_heads, group * n, s.head_dim})
                              .contiguous();
    std::vector<int64_t> row_pos(static_cast<size_t>(group * n));
    for (int64_t r = 0; r < group * n; ++r) row_pos[static_cast<size_t>(r)] = start + r % n;
    const KvSequence* one = &seq;
    return FusedCpuAttention(qg, row_pos, cache, layer, std::span<const KvSequence* const>(&one, 1),
                             {start + n}, s)
        .view({s.num_kv_heads, group, n, s.head_dim})
        .permute({2, 0, 1, 3})
        .reshape({n, s.num_heads * s.head_dim})
        .to(q.scalar_type());
  }
  const int64_t group = s.num_heads / s.num_kv_heads;
  const int64_t rows = group * n;
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  // [n, kvh, g, d] -> [kvh, g, n, d] -> [kvh, g*n, d]; row r is query (r % n) of head (r / n) in the group.
  at::Tensor qg = (q.to(at::kFloat) * scale)
                      .view({n, s.num_kv_heads, group, s.head_dim})
                      .permute({1, 2, 0, 3})
                      .reshape({s.num_kv_heads, rows, s.head_dim});
  const auto fopts = at::TensorOptions().dtype(at::kFloat).device(q.device());
  at::Tensor running_max =
      at::full({s.num_kv_heads, rows, 1}, -std::numeric_limits<float>::infinity(), fopts);
  at::Tensor running_sum = at::zeros({s.num_kv_heads, rows, 1}, fopts);
  at::Tensor acc = at::zeros({s.num_kv_heads, rows, s.head_dim}, fopts);
  // Absolute position of each score row, for the causal mask.
  at::Tensor row_pos =
      (at::arange(n, at::TensorOptions().dtype(at::kLong).device(q.device())) + start).repeat({group});
  const int64_t last = start + n;  // keys [0, last)
  for (int64_t kb = 0; kb < last; kb += s.key_block_tokens) {
    const int64_t ke = std::min(kb + s.key_block_tokens, last);
    auto [k, v] = cache.Read(layer, seq, kb, ke);
    at::Tensor kt = k.to(at::kFloat).permute({1, 2, 0});  // [kvh, d, b]
    at::Tensor vv = v.to(at::kFloat).permute({1, 0, 2});  // [kvh, b, d]
    at::Tensor scores = at::bmm(qg, kt);                  // [kvh, rows, b]
    if (ke - 1 > start) {                                 // some key in this block lies after some query
      at::Tensor key_pos = at::arange(kb, ke, at::TensorOptions().dtype(at::kLong).device(q.device()));
      at::Tensor masked = key_pos.unsqueeze(0) > row_pos.unsqueeze(1);  // [rows, b]
      scores.masked_fill_(masked.unsqueeze(0), -std::numeric_limits<float>::infinity());
    }
    at::Tensor new_max = at::maximum(running_max, std::get<0>(scores.max(-1, /*keepdim=*/true)));
    at::Tensor p = (scores - new_max).exp_();
    at::Tensor correction = (running_max - new_max).exp_();
    running_sum = running_sum * correction + p.sum(-1, /*keepdim=*/true);
    acc = acc * correction + at::bmm(p, vv);
    running_max = new_max;
  }
  at::Tensor out = (acc / running_sum)
                       .view({s.num_kv_heads, group, n, s.head_dim})
                       .permute({2, 0, 1, 3})
                       .reshape({n, s.num_heads * s.head_dim});
  return out.to(q.scalar_type());
}

at::Tensor PagedDecodeAttention(const at::Tensor& q, std::span<const int64_t> positions,
                                const PagedKvCache& cache, int64_t layer,
                                std::span<const KvSequence* const> seqs, const AttentionShape& s) {
  const int64_t batch = q.size(0);
  if (UseFusedCpu(q, s)) {
    const int64_t group = s.num_heads / s.num_kv_heads;
    const at::Tensor qg = (q.to(at::kFloat) * (1.0 / std::sqrt(static_cast<double>(s.head_dim))))
                              .view({batch, s.num_kv_heads, group, s.head_dim})
                              .contiguous();
    std::vector<int64_t> row_pos;
    std::vector<int64_t> lengths;
    for (int64_t i = 0; i < batch; ++i) {
      row_pos.insert(row_pos.end(), static_cast<size_t>(group), positions[i]);
      lengths.push_back(positions[i] + 1);
    }
    return FusedCpuAttention(qg, row_pos, cache, layer, seqs, lengths, s)
        .reshape({batch, s.num_heads * s.head_dim})
        .to(q.scalar_type());
  }
  const int64_t group = s.num_heads / s.num_kv_heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));
  const auto dev = q.device();
  // [B, heads, d] -> [B, kvh, g, d]: head h is query g = h % group of kv head h / group.
  at::Tensor qg = (q.to(at::kFloat) * scale).view({batch, s.num_kv_heads, group, s.head_dim});
  const auto fopts = at::TensorOptions().dtype(at::kFloat).device(dev);
  at::Tensor running_max =
      at::full({batch, s.num_kv_heads, group, 1}, -std::numeric_limits<float>::infinity(), fopts);
  at::Tensor running_sum = at::zeros({batch, s.num_kv_heads, group, 1}, fopts);
  at::Tensor acc = at::zeros({batch, s.num_kv_heads, group, s.head_dim}, fopts);
  std::vector<int64_t> lengths(positions.begin(), positions.end());
  for (int64_t& l : lengths) ++l;
  const at::Tensor pos =
      at::tensor(std::vector<int64_t>(positions.begin(), positions.end()), at::kLong).to(dev);
  const int64_t last = *std::max_element(lengths.begin(), lengths.end());
  for (int64_t kb = 0; kb < last; kb += s.key_block_tokens) {
    const int64_t ke = std::min(kb + s.key_block_tokens, last);
    const int64_t b = ke - kb;
    auto [k, v] = cache.ReadPadded(layer, seqs, lengths, kb, ke);  // [B, b, kvh, d]
    at::Tensor kt = k.to(at::kFloat).permute({0, 2, 3, 1});        // [B, kvh, d, b]
    at::Tensor vv = v.to(at::kFloat).permute({0, 2, 1, 3});        // [B, kvh, b, d]
    at::Tensor scores = at::matmul(qg, kt);                        // [B, kvh, g, b]
    // Keys past a sequence's own position: its future (none in a decode step) and the padding.
    const at::Tensor key_pos = at::arange(kb, ke, at::TensorOptions().dtype(at::kLong).device(dev));
    const at::Tensor masked = key_pos.unsqueeze(0) > pos.unsqueeze(1);  // [B, b]
    scores.masked_fill_(masked.view({batch, 1, 1, b}), -std::numeric_limits<float>::infinity());
    vv = vv.masked_fill(masked.view({batch, 1, b, 1}), 0.0);  // the null page's bytes never reach the sum
    // Block 0 holds key 0 of every sequence, so the running maximum is finite from then on.
    at::Tensor new_max = at::maximum(running_max, std::get<0>(scores.max(-1, /*keepdim=*/true)));
    at::Tensor p = (scores - new_max).exp_();
    at::Tensor correction = (running_max - new_max).exp_();
    running_sum = running_sum * correction + p.sum(-1, /*keepdim=*/true);
    acc = acc * correction + at::matmul(p, vv);
    running_max = new_max;
  }
  return (acc / running_sum).reshape({batch, s.num_heads * s.head_dim}).to(q.scalar_type());
}

}  // namespace mineru::engine
