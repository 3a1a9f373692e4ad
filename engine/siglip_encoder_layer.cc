#include "engine/siglip_encoder_layer.h"

#include "engine/dense_ops.h"
#include "engine/gelu.h"
#include "engine/model_units.h"
#include "engine/vision_attention.h"

namespace mineru::engine {

at::Tensor SiglipEncoderLayer(const at::Tensor& x, const WeightLease& w, int64_t layer, const VisionConfig& c,
                              int64_t crops_per_attention) {
  const std::string p = VisionLayerPrefix(layer);
  const int64_t crops = x.size(0);
  const int64_t n = x.size(1);

  at::Tensor h = at::layer_norm(x, {c.hidden_size}, w.Get(p + "layer_norm1.weight"),
                                w.Get(p + "layer_norm1.bias"), c.layer_norm_eps);
  const auto heads = [&](const at::Tensor& t) {  // [crops, n, hidden] -> [crops, heads, n, head_dim]
    return t.view({crops, n, c.num_heads, c.head_dim}).transpose(1, 2);
  };
  at::Tensor q = heads(Linear(h, w.Get(p + "self_attn.q_proj.weight"), w.Get(p + "self_attn.q_proj.bias")));
  at::Tensor k = heads(Linear(h, w.Get(p + "self_attn.k_proj.weight"), w.Get(p + "self_attn.k_proj.bias")));
  at::Tensor v = heads(Linear(h, w.Get(p + "self_attn.v_proj.weight"), w.Get(p + "self_attn.v_proj.bias")));
  at::Tensor attn =
      VisionAttention(q, k, v, crops_per_attention).transpose(1, 2).reshape({crops, n, c.hidden_size});
  at::Tensor hidden =
      x + Linear(attn, w.Get(p + "self_attn.out_proj.weight"), w.Get(p + "self_attn.out_proj.bias"));

  at::Tensor m = at::layer_norm(hidden, {c.hidden_size}, w.Get(p + "layer_norm2.weight"),
                                w.Get(p + "layer_norm2.bias"), c.layer_norm_eps);
  m = Gelu(Linear(m, w.Get(p + "mlp.fc1.weight"), w.Get(p + "mlp.fc1.bias")), "tanh");
  return hidden + Linear(m, w.Get(p + "mlp.fc2.weight"), w.Get(p + "mlp.fc2.bias"));
}

}  // namespace mineru::engine
