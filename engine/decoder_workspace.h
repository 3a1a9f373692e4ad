// DecoderWorkspaceBytes: an upper bound of the activation bytes one decoder forward allocates on the
// compute device, for reserving them through the residency manager (ResidencyManager::ReserveWorkspace)
// before the forward runs, so that weights + KV pages + workspace stay within the kGpu budget.
// Design note: the bound is an inventory of every tensor the forward creates (qwen2_decoder.cc,
// qwen2_decoder_layer.cc, paged_attention.cc, rms_norm.cc, rotary_embedding.cc, swiglu_mlp.cc), summed
// as if none were freed within a layer: the residual stream and its norms, q/k/v and RoPE, the attention
// of the largest slice over one key block (scores, probabilities, mask, the gathered keys and values, the
// running max/sum/accumulator, in float32; a decode step attends all its sequences at once), the
// attention output, the MLP, the head over the rows that need logits, and in bf16 the widened operands
// of the CPU's dense products. On the CPU, RMSNorm, RoPE and the gated activation run fused row kernels
// that allocate only their outputs, and a decode step's attention gathers one head's keys per thread.
// Only one layer's temporaries count: each layer frees them before the next.
// It is never L x L: attention is bounded by the key block (paged_attention.h) and the prefill chunk.
// The weight lease's own dtype conversion is counted apart (lease_conversion.h). Not counted: the
// caller's input embeddings (they exist before the forward) and the KV pages (the pool, charged once).
// tests/engine/decoder_workspace_test.cc checks the bound against the bytes libtorch really allocates.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "engine/model_config.h"

namespace mineru::engine {

struct DecoderWorkspaceShape {
  int64_t rows = 0;            // new tokens in the forward, all sequences together
  int64_t max_slice_rows = 0;  // new tokens of the largest single sequence (a prefill chunk)
  int64_t logit_rows = 0;      // rows that need logits
  int64_t max_keys = 0;        // longest sequence after the forward (keys attended), capped by key_block
  int64_t key_block_tokens = 512;
  int64_t num_slices = 1;
  // On the CPU, attention runs the fused kernel (attention_cpu_kernel.h) and bf16 products widen
  // their operands (dense_ops.h).
  bool on_cpu = false;
};

uint64_t DecoderWorkspaceBytes(const TextConfig& config, at::ScalarType compute_dtype,
                               const DecoderWorkspaceShape& shape);

}  // namespace mineru::engine
