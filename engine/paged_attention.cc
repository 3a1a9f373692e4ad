#include "engine/paged_attention.h"

#include <cmath>
#include <limits>

namespace mineru::engine {

at::Tensor PagedAttention(const at::Tensor& q, int64_t start, const PagedKvCache& cache, int64_t layer,
                          const KvSequence& seq, const AttentionShape& s) {
  const int64_t n = q.size(0);
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

}  // namespace mineru::engine
