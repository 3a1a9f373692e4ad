#include "engine/qwen2_decoder.h"

#include "engine/decoder_workspace.h"
#include "engine/dense_ops.h"
#include "engine/lease_conversion.h"
#include "engine/qwen2_decoder_layer.h"
#include "engine/rms_norm.h"
#include "engine/torch_status.h"
#include "engine/workspace_reservation.h"
#include "residency/residency_manager.h"

namespace mineru::engine {

Qwen2Decoder::Qwen2Decoder(const TextConfig& config, WeightSource* weights, PagedKvCache* cache,
                           int64_t key_block_tokens, residency::ResidencyManager* workspace_manager)
    : config_(config),
      weights_(weights),
      cache_(cache),
      rope_(config.head_dim, config.rope_theta),
      key_block_tokens_(key_block_tokens),
      workspace_manager_(workspace_manager),
      lease_conversion_bytes_(LeaseConversionBytes(weights->units(), weights->compute_dtype())) {}

Result<at::Tensor> Qwen2Decoder::Embed(std::span<const int64_t> tokens) const {
  for (int64_t t : tokens) {
    if (t < 0 || t >= config_.vocab_size) {
      return InvalidArgument("token id " + std::to_string(t) + " is outside the vocabulary (" +
                             std::to_string(config_.vocab_size) + ")");
    }
  }
  return CatchTorch("token embedding", [&]() -> Result<at::Tensor> {
    MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("embed_tokens"));
    at::Tensor ids =
        at::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), at::kLong).to(weights_->device());
    return lease.Get("model.embed_tokens.weight").index_select(0, ids);
  });
}

Result<at::Tensor> Qwen2Decoder::Forward(std::span<const DecoderInput> inputs) const {
  if (inputs.empty()) return InvalidArgument("decoder forward with no input");
  std::vector<DecoderSlice> slices;
  std::vector<at::Tensor> parts;
  std::vector<int64_t> positions;
  int64_t rows = 0;
  DecoderWorkspaceShape shape;
  shape.key_block_tokens = key_block_tokens_;
  shape.num_slices = static_cast<int64_t>(inputs.size());
  shape.on_cpu = weights_->device().is_cpu();
  for (const DecoderInput& in : inputs) {
    if (!in.seq || !in.embeds.defined() || in.embeds.dim() != 2 || in.embeds.size(0) < 1 ||
        in.embeds.size(1) != config_.hidden_size) {
      return InvalidArgument("decoder input: expected embeddings [n >= 1, " +
                             std::to_string(config_.hidden_size) + "]");
    }
    const int64_t n = in.embeds.size(0);
    const int64_t start = in.seq->length();
    if (start + n > config_.max_position_embeddings) {
      return OutOfRange("sequence of " + std::to_string(start + n) +
                        " tokens exceeds max_position_embeddings " +
                        std::to_string(config_.max_position_embeddings));
    }
    MINERU_RETURN_IF_ERROR(cache_->Reserve(*in.seq, start + n));
    slices.push_back({in.seq, start, rows, n});
    for (int64_t i = 0; i < n; ++i) positions.push_back(start + i);
    parts.push_back(in.embeds);
    rows += n;
    shape.max_slice_rows = std::max(shape.max_slice_rows, n);
    shape.max_keys = std::max(shape.max_keys, start + n);
    shape.logit_rows += in.all_logits ? n : 1;
  }
  shape.rows = rows;
  // The activations of this forward, reserved on the manager's kGpu tier until it returns.
  const uint64_t workspace_bytes =
      DecoderWorkspaceBytes(config_, weights_->compute_dtype(), shape) + lease_conversion_bytes_;
  MINERU_ASSIGN_OR_RETURN(residency::WorkspaceReservation workspace,
                          ReserveActivations(workspace_manager_, workspace_bytes, "decoder"));
  peak_workspace_bytes_ = std::max(peak_workspace_bytes_, workspace_bytes);
  last_workspace_bytes_ = workspace_bytes;
  return CatchTorch("decoder forward", [&]() -> Result<at::Tensor> {
    const at::Device dev = weights_->device();
    at::Tensor x = (parts.size() == 1 ? parts[0] : at::cat(parts, 0)).to(dev, weights_->compute_dtype());
    DecoderLayerContext ctx;
    ctx.config = &config_;
    ctx.rope = &rope_;
    ctx.positions = at::tensor(positions, at::kLong).to(dev);
    ctx.slices = slices;
    ctx.cache = cache_;
    ctx.key_block_tokens = key_block_tokens_;
    for (int64_t l = 0; l < config_.num_layers; ++l) {
      MINERU_ASSIGN_OR_RETURN(WeightLease lease, weights_->Acquire("decoder." + std::to_string(l)));
      x = Qwen2DecoderLayer(x, lease, l, ctx);
    }
    for (const DecoderSlice& s : slices)
      cache_->SetLength(const_cast<KvSequence&>(*s.seq), s.start + s.count);
    // Rows that need logits.
    std::vector<int64_t> keep;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const DecoderSlice& s = slices[i];
      if (inputs[i].all_logits) {
        for (int64_t r = 0; r < s.count; ++r) keep.push_back(s.row + r);
      } else {
        keep.push_back(s.row + s.count - 1);
      }
    }
    if (static_cast<int64_t>(keep.size()) != rows) x = x.index_select(0, at::tensor(keep, at::kLong).to(dev));
    // One lease at a time (the residency manager's smallest budget streams one unit through one slot):
    // the head's lease ends before the tied head leases the embedding.
    at::Tensor logits;
    {
      MINERU_ASSIGN_OR_RETURN(WeightLease head, weights_->Acquire("head"));
      x = RmsNorm(x, head.Get("model.norm.weight"), config_.rms_norm_eps);
      if (!weights_->tied()) logits = Linear(x, head.Get("lm_head.weight"));
    }
    if (weights_->tied()) {
      MINERU_ASSIGN_OR_RETURN(WeightLease emb, weights_->Acquire("embed_tokens"));
      logits = Linear(x, emb.Get("model.embed_tokens.weight"));
    }
    return logits.to(at::kCPU, at::kFloat);
  });
}

Result<at::Tensor> Qwen2Decoder::Prefill(KvSequence& seq, const at::Tensor& embeds, int64_t chunk_tokens,
                                         bool all_logits) const {
  if (chunk_tokens < 1) return InvalidArgument("prefill chunk must be at least one token");
  if (!embeds.defined() || embeds.dim() != 2 || embeds.size(0) < 1) {
    return InvalidArgument("prefill: expected embeddings [n >= 1, hidden]");
  }
  const int64_t n = embeds.size(0);
  std::vector<at::Tensor> logits;
  for (int64_t c0 = 0; c0 < n; c0 += chunk_tokens) {
    const int64_t m = std::min(chunk_tokens, n - c0);
    const bool last = c0 + m == n;
    DecoderInput in{&seq, embeds.narrow(0, c0, m), all_logits};
    if (!all_logits && !last) in.all_logits = false;
    MINERU_ASSIGN_OR_RETURN(at::Tensor l, Forward(std::span<const DecoderInput>(&in, 1)));
    if (all_logits || last) logits.push_back(l);
  }
  return CatchTorch("prefill logits", [&]() -> Result<at::Tensor> {
    return logits.size() == 1 ? logits[0] : at::cat(logits, 0);
  });
}

}  // namespace mineru::engine
