#include "engine/siglip_encoder_layer.h"

#include <cmath>

#include "engine/dense_ops.h"
#include "engine/model_units.h"

namespace mineru::engine {

at::Tensor SiglipEncoderLayer(const at::Tensor& x, const WeightLease& w, int64_t layer, const VisionConfig& c,
                              int64_t crops_per_attention) {
  const std::string p = VisionLayerPrefix(layer);
  const int64_t crops = x.size(0);
  const int64_t n = x.size(1);
  const double scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));

  at::Tensor h = at::layer_norm(x, {c.hidden_size}, w.Get(p + "layer_norm1.weight"),
                                w.Get(p + "layer_norm1.bias"), c.layer_norm_eps);
  const auto heads = [&](const at::Tensor& t) {  // [crops, n, hidden] -> [crops, heads, n, head_dim]
    return t.view({crops, n, c.num_heads, c.head_dim}).transpose(1, 2);
  };
  at::Tensor q = heads(Linear(h, w.Get(p + "self_attn.q_proj.weight"), w.Get(p + "self_attn.q_proj.bias")));
  at::Tensor k = heads(Linear(h, w.Get(p + "self_attn.k_proj.weight"), w.Get(p + "self_attn.k_proj.bias")));
  at::Tensor v = heads(Linear(h, w.Get(p + "self_attn.v_proj.weight"), w.Get(p + "self_attn.v_proj.bias")));
  std::vector<at::Tensor> outs;
  for (int64_t c0 = 0; c0 < crops; c0 += crops_per_attention) {
    const int64_t m = std::min(crops_per_attention, crops - c0);
    at::Tensor scores = Matmul(q.narrow(0, c0, m), k.narrow(0, c0, m).transpose(-1, -2)) * scale;
    at::Tensor probs = at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
    outs.push_back(Matmul(probs, v.narrow(0, c0, m)));
  }
  at::Tensor attn =
      (outs.size() == 1 ? outs[0] : at::cat(outs, 0)).transpose(1, 2).reshape({crops, n, c.hidden_size});
  at::Tensor hidden =
      x + Linear(attn, w.Get(p + "self_attn.out_proj.weight"), w.Get(p + "self_attn.out_proj.bias"));

  at::Tensor m = at::layer_norm(hidden, {c.hidden_size}, w.Get(p + "layer_norm2.weight"),
                                w.Get(p + "layer_norm2.bias"), c.layer_norm_eps);
  m = at::gelu(Linear(m, w.Get(p + "mlp.fc1.weight"), w.Get(p + "mlp.fc1.bias")), "tanh");
  return hidden + Linear(m, w.Get(p + "mlp.fc2.weight"), w.Get(p + "mlp.fc2.bias"));
}

}  // namespace mineru::engine
