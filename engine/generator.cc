#include "engine/generator.h"

#include <ATen/Parallel.h>

#include "common/clock.h"
#include "engine/torch_status.h"

namespace mineru::engine {
namespace {

// Picks a token from a logits row (CPU float32) and keeps the raw row when asked.
int64_t Choose(const at::Tensor& row, GreedySampler& sampler, const GenerationRequest& req,
               std::vector<at::Tensor>& kept) {
  at::Tensor scores = row.contiguous().clone();
  if (req.keep_step_logits) kept.push_back(scores.clone());
  return sampler.Next(std::span<float>(scores.data_ptr<float>(), scores.numel()));
}

}  // namespace

Result<std::vector<GenerationResult>> Generate(const Qwen2Decoder& decoder,
                                               std::span<const GenerationRequest> requests,
                                               const GenerateOptions& options) {
  const size_t n = requests.size();
  std::vector<KvSequence> seqs(n);
  std::vector<GreedySampler> samplers;
  std::vector<std::vector<at::Tensor>> kept(n);
  std::vector<GenerationResult> results(n);
  std::vector<int64_t> last(n, -1);
  for (const auto& r : requests) samplers.emplace_back(r.sampling);
  // Pages go back to the pool on every path out.
  struct FreeAll {
    PagedKvCache& cache;
    std::vector<KvSequence>& seqs;
    ~FreeAll() {
      for (auto& s : seqs) cache.Free(s);
    }
  } free_all{decoder.cache(), seqs};

  for (size_t i = 0; i < n; ++i) {
    const GenerationRequest& r = requests[i];
    Stopwatch sw;
    if (options.before_forward) options.before_forward(r.prompt_embeds.size(0));
    MINERU_ASSIGN_OR_RETURN(
        at::Tensor logits,
        decoder.Prefill(seqs[i], r.prompt_embeds, options.prefill_chunk_tokens, r.keep_prompt_logits));
    results[i].prefill_ms = sw.ElapsedNanos() / 1e6;
    if (r.keep_prompt_logits) results[i].prompt_logits = logits;
    if (r.sampling.max_new_tokens > 0) {
      MINERU_ASSIGN_OR_RETURN(last[i], CatchTorch("sampling", [&]() -> Result<int64_t> {
                                return Choose(logits[logits.size(0) - 1], samplers[i], r, kept[i]);
                              }));
    }
  }
  Stopwatch decode_clock;
  int64_t steps = 0;
  while (true) {
    std::vector<size_t> active;
    for (size_t i = 0; i < n; ++i) {
      if (requests[i].sampling.max_new_tokens > 0 && !samplers[i].done()) active.push_back(i);
    }
    if (active.empty()) break;
    std::vector<int64_t> tokens;
    for (size_t i : active) tokens.push_back(last[i]);
    if (options.before_forward) options.before_forward(static_cast<int64_t>(active.size()));
    MINERU_ASSIGN_OR_RETURN(at::Tensor embeds, decoder.Embed(tokens));
    std::vector<DecoderInput> inputs;
    for (size_t k = 0; k < active.size(); ++k) {
      inputs.push_back({&seqs[active[k]], embeds.narrow(0, static_cast<int64_t>(k), 1), false});
    }
    MINERU_ASSIGN_OR_RETURN(at::Tensor logits, decoder.Forward(inputs));
    ++steps;
    // Each sequence's choice is its own (sampler, history, kept logits): the rows split over threads.
    MINERU_RETURN_IF_ERROR(CatchTorch("sampling", [&]() -> Status {
      at::parallel_for(0, static_cast<int64_t>(active.size()), 1, [&](int64_t k0, int64_t k1) {
        for (int64_t k = k0; k < k1; ++k) {
          const size_t i = active[static_cast<size_t>(k)];
          last[i] = Choose(logits[k], samplers[i], requests[i], kept[i]);
        }
      });
      return Status::Ok();
    }));
  }
  const double decode_ms = decode_clock.ElapsedNanos() / 1e6;
  for (size_t i = 0; i < n; ++i) {
    results[i].generated = samplers[i].generated();
    results[i].stopped_at_eos = samplers[i].stopped_at_eos();
    results[i].decode_ms = decode_ms;
    results[i].decode_steps = steps;
    if (requests[i].keep_step_logits && !kept[i].empty()) {
      MINERU_ASSIGN_OR_RETURN(results[i].step_logits, CatchTorch("step logits", [&]() -> Result<at::Tensor> {
                                return at::stack(kept[i]);
                              }));
    }
  }
  return results;
}

}  // namespace mineru::engine
