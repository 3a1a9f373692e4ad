#include "engine/vision_attention.h"

#include <cmath>
#include <vector>

#include "engine/attention_cpu_kernel.h"
#include "engine/dense_ops.h"

namespace mineru::engine {
namespace {

// All crops in one call of the kernel: each crop is a "sequence" of the batch, each head its own
// key/value head, and every row sees every key (one block of all the patches).
at::Tensor FusedVisionAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double scale) {
  const int64_t crops = q.size(0), heads = q.size(1), n = q.size(2), d = q.size(3);
  const int64_t padded = (n + 7) / 8 * 8;
  at::Tensor qf = at::empty({crops, heads, n, d});
  qf.copy_(q).mul_(scale);
  at::Tensor kt = at::empty({crops, heads, d, padded});
  kt.narrow(3, n, padded - n).zero_();
  kt.narrow(3, 0, n).copy_(k.transpose(-1, -2));
  at::Tensor vf = at::empty({crops, heads, n, d});
  vf.copy_(v);
  const std::vector<int64_t> last_key(static_cast<size_t>(crops * n), n - 1);  // every key visible
  FusedAttention attention(crops, heads, n, d);
  attention.Attend(qf, last_key.data(), kt, vf, 0, n);
  return attention.Finish().to(q.scalar_type());
}

}  // namespace

bool VisionAttentionFused(bool on_cpu, int64_t head_dim) {
  return on_cpu && CpuAttentionKernelAvailable(head_dim);
}

at::Tensor VisionAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           int64_t crops_per_attention) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(3)));
  if (VisionAttentionFused(q.device().is_cpu(), q.size(3))) return FusedVisionAttention(q, k, v, scale);
  const int64_t crops = q.size(0);
  std::vector<at::Tensor> outs;
  for (int64_t c0 = 0; c0 < crops; c0 += crops_per_attention) {
    const int64_t m = std::min(crops_per_attention, crops - c0);
    at::Tensor scores = Matmul(q.narrow(0, c0, m), k.narrow(0, c0, m).transpose(-1, -2)) * scale;
    at::Tensor probs = at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
    outs.push_back(Matmul(probs, v.narrow(0, c0, m)));
  }
  return outs.size() == 1 ? outs[0] : at::cat(outs, 0);
}

}  // namespace mineru::engine
