// VisionWorkspaceBytes: an upper bound of the activation bytes one vision encode (vision_tower.h)
// allocates on the compute device, reserved through the residency manager before it runs, as the
// decoder does for its forwards (decoder_workspace.h), so that weights + KV pages + workspace stay
// within the kGpu budget while a page's crops go through the tower.
// Design note: an inventory of the tensors the encode creates (vision_tower.cc, siglip_embeddings.cc,
// siglip_encoder_layer.cc, mm_projector.cc), summed as if none were freed within a step: the pixels on
// the device, the patch embeddings, the residual stream of every crop (the layer's input and output),
// one chunk of crops through one encoder layer (norms, q/k/v and their per-head copies, the attention
// scores of one attention group with their float32 softmax, the MLP), the projector over every crop,
// and in bf16 on the CPU the widened operands of the dense products (dense_ops.h). Encoder layers run
// a chunk of crops at a time, so the bound grows with the number of crops only through the residual
// stream and the projector. tests/engine/vision_workspace_test.cc checks it against measured peaks.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "engine/model_config.h"

namespace mineru::engine {

struct VisionWorkspaceShape {
  int64_t crops = 1;
  int64_t crops_per_chunk = 1;      // crops through an encoder layer at once
  int64_t crops_per_attention = 1;  // crops whose attention scores exist at once (unfused attention)
  bool keep_siglip = false;         // the SigLIP output is returned too
  bool on_cpu = false;              // the CPU: fused attention, and bf16 products widen their operands
};

uint64_t VisionWorkspaceBytes(const MultimodalConfig& config, int64_t text_hidden,
                              at::ScalarType compute_dtype, const VisionWorkspaceShape& shape);

}  // namespace mineru::engine
