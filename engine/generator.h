// Generation for many sequences at once: each prompt is prefilled on its own (in chunks), then every
// step decodes one token for all unfinished sequences in one batched forward, whatever their lengths.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <span>
#include <vector>

#include "common/result.h"
#include "engine/qwen2_decoder.h"
#include "engine/sampler.h"

namespace mineru::engine {

struct GenerationRequest {
  at::Tensor prompt_embeds;  // [L, hidden], the spliced prompt
  SamplingOptions sampling;
  bool keep_prompt_logits = false;  // logits of every prompt row (memory: L x vocab floats)
  bool keep_step_logits = false;    // raw logits that chose each generated token
};

struct GenerationResult {
  std::vector<int64_t> generated;
  bool stopped_at_eos = false;
  at::Tensor prompt_logits;  // [L, vocab] when kept
  at::Tensor step_logits;    // [generated, vocab] when kept
  double prefill_ms = 0;
  double decode_ms = 0;
  int64_t decode_steps = 0;
};

struct GenerateOptions {
  int64_t prefill_chunk_tokens = 512;
  // Called on the calling thread before each prompt's prefill (rows: its length) and each decode step
  // (rows: the sequences in it): the model thread's watchdog deadline is set there, in proportion.
  std::function<void(int64_t rows)> before_forward;
};

Result<std::vector<GenerationResult>> Generate(const Qwen2Decoder& decoder,
                                               std::span<const GenerationRequest> requests,
                                               const GenerateOptions& options);

}  // namespace mineru::engine
