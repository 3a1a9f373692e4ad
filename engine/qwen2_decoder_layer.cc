#include "engine/qwen2_decoder_layer.h"

#include "engine/dense_ops.h"
#include "engine/model_units.h"
#include "engine/rms_norm.h"
#include "engine/swiglu_mlp.h"

namespace mineru::engine {
namespace {

// Several sequences, one new token each, packed in slice order (a batched decode step).
bool IsDecodeStep(std::span<const DecoderSlice> slices) {
  if (slices.size() < 2) return false;
  for (size_t i = 0; i < slices.size(); ++i) {
    if (slices[i].count != 1 || slices[i].row != static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

at::Tensor Qwen2DecoderLayer(const at::Tensor& x, const WeightLease& w, int64_t layer,
                             const DecoderLayerContext& ctx) {
  const TextConfig& c = *ctx.config;
  const std::string p = DecoderLayerPrefix(layer);
  const int64_t rows = x.size(0);

  at::Tensor h = RmsNorm(x, w.Get(p + "input_layernorm.weight"), c.rms_norm_eps);
  const at::Tensor weights[] = {w.Get(p + "self_attn.q_proj.weight"), w.Get(p + "self_attn.k_proj.weight"),
                                w.Get(p + "self_attn.v_proj.weight")};
  const at::Tensor biases[] = {w.Get(p + "self_attn.q_proj.bias"), w.Get(p + "self_attn.k_proj.bias"),
                               w.Get(p + "self_attn.v_proj.bias")};
  std::vector<at::Tensor> qkv = Linears(h, weights, biases);
  at::Tensor q = qkv[0], k = qkv[1], v = qkv[2];
  q = ctx.rope->Apply(q.view({rows, c.num_heads, c.head_dim}), ctx.positions);
  k = ctx.rope->Apply(k.view({rows, c.num_kv_heads, c.head_dim}), ctx.positions);
  v = v.view({rows, c.num_kv_heads, c.head_dim});

  const AttentionShape shape{c.num_heads, c.num_kv_heads, c.head_dim, ctx.key_block_tokens};
  at::Tensor attn;
  if (IsDecodeStep(ctx.slices)) {
    // One token per sequence: all sequences' K/V written and attended in one go.
    std::vector<const KvSequence*> seqs;
    std::vector<int64_t> positions;
    for (const DecoderSlice& s : ctx.slices) {
      seqs.push_back(s.seq);
      positions.push_back(s.start);
    }
    ctx.cache->WriteTokens(layer, seqs, positions, k, v);
    attn = PagedDecodeAttention(q, positions, *ctx.cache, layer, seqs, shape);
  } else {
    std::vector<at::Tensor> outs;
    outs.reserve(ctx.slices.size());
    for (const DecoderSlice& s : ctx.slices) {
      ctx.cache->Write(layer, *s.seq, s.start, k.narrow(0, s.row, s.count), v.narrow(0, s.row, s.count));
      outs.push_back(PagedAttention(q.narrow(0, s.row, s.count), s.start, *ctx.cache, layer, *s.seq, shape));
    }
    attn = outs.size() == 1 ? outs[0] : at::cat(outs, 0);
  }
  at::Tensor hidden = x + Linear(attn, w.Get(p + "self_attn.o_proj.weight"));

  at::Tensor n = RmsNorm(hidden, w.Get(p + "post_attention_layernorm.weight"), c.rms_norm_eps);
  return hidden + SwigluMlp(n, w.Get(p + "mlp.gate_proj.weight"), w.Get(p + "mlp.up_proj.weight"),
                            w.Get(p + "mlp.down_proj.weight"));
}

}  // namespace mineru::engine
