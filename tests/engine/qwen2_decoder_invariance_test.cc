// A sequence's logits do not depend on what else the decoder computes with it, bit for bit, in bfloat16
// and float32 on the CPU: alone; decoded in steps with other sequences of different lengths (placed
// before and after it); its decode token sharing a step with another sequence's prefill chunk; its
// prompt prefilled in chunks of 1, 3 or whole; KV pages of 4 or 16 tokens. The tokens fed are fixed
// (not sampled), so every run computes the same rows and any difference is arithmetic.
#include <gtest/gtest.h>

#include "engine/mineru2_model.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

const std::vector<int64_t> kPrompt = {5, 17, 99, 42, 7, 250, 3, 64, 128, 11, 200, 31, 77};
const std::vector<int64_t> kSteps = {9, 140, 33, 281, 57, 2};
// Companions: other sequences' prompts (different lengths) and the tokens they decode.
const std::vector<std::vector<int64_t>> kOthers = {
    {1, 2, 3, 4, 5, 6, 7}, {90,  91,  92,  93,  94,  95,  96,  97,  98,  99,  100, 101,
                            102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112}};

struct Run {
  int64_t page_tokens = 16;
  int64_t chunk = 0;           // prompt chunk; 0: whole
  bool companions = false;     // others decode in the same steps
  bool mixed_prefill = false;  // the prompt's chunks share steps with the others' decode tokens
};

// The prompt's logits (every row) and the logits of each decode step, one row each.
struct Trace {
  at::Tensor prompt;
  std::vector<at::Tensor> steps;
};

at::Tensor Logits(Mineru2Model& m, std::vector<DecoderInput> inputs) {
  auto r = m.decoder().Forward(inputs);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : at::Tensor();
}

at::Tensor Embed(Mineru2Model& m, std::vector<int64_t> tokens) { return *m.decoder().Embed(tokens); }

Trace RunOne(const std::filesystem::path& dir, at::ScalarType dtype, const Run& run) {
  ModelOptions o;
  o.compute_dtype = dtype;
  o.kv_page_tokens = run.page_tokens;
  auto model = Mineru2Model::Load(dir, o);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  Trace t;
  if (!model.ok()) return t;
  Mineru2Model& m = **model;
  KvSequence seq;
  std::vector<KvSequence> others(kOthers.size());
  if (run.companions) {
    for (size_t i = 0; i < kOthers.size(); ++i) (void)Logits(m, {{&others[i], Embed(m, kOthers[i]), false}});
  }
  // Each companion decodes token 10 + its step, one row per step.
  int64_t other_step = 0;
  const auto other_inputs = [&]() {
    std::vector<DecoderInput> in;
    for (size_t i = 0; i < others.size(); ++i)
      in.push_back({&others[i], Embed(m, {10 + other_step + static_cast<int64_t>(i)}), false});
    ++other_step;
    return in;
  };
  const at::Tensor prompt = Embed(m, kPrompt);
  const int64_t n = prompt.size(0), chunk = run.chunk == 0 ? n : run.chunk;
  std::vector<at::Tensor> rows;
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    std::vector<DecoderInput> in = {{&seq, prompt.narrow(0, c0, std::min(chunk, n - c0)), true}};
    if (run.mixed_prefill) {
      for (DecoderInput& o : other_inputs()) in.push_back(o);
    }
    const at::Tensor l = Logits(m, in);
    if (!l.defined()) return t;
    rows.push_back(l.narrow(0, 0, in[0].embeds.size(0)));
  }
  t.prompt = at::cat(rows, 0);
  for (size_t s = 0; s < kSteps.size(); ++s) {
    std::vector<DecoderInput> in;
    if (run.companions) in = other_inputs();
    // Our sequence first, last, or in the middle of the step.
    const size_t place = run.companions ? s % (in.size() + 1) : 0;
    in.insert(in.begin() + static_cast<std::ptrdiff_t>(place), {&seq, Embed(m, {kSteps[s]}), false});
    const at::Tensor l = Logits(m, in);
    if (!l.defined()) return t;
    t.steps.push_back(l[static_cast<int64_t>(place)].clone());
  }
  m.kv_cache().Free(seq);
  for (KvSequence& o : others) m.kv_cache().Free(o);
  return t;
}

void ExpectSame(const Trace& got, const Trace& want, const std::string& what) {
  ASSERT_TRUE(got.prompt.defined() && want.prompt.defined()) << what;
  EXPECT_TRUE(at::equal(got.prompt, want.prompt))
      << what << ": prompt logits differ by " << (got.prompt - want.prompt).abs().max().item<float>();
  ASSERT_EQ(got.steps.size(), want.steps.size()) << what;
  for (size_t s = 0; s < got.steps.size(); ++s) {
    EXPECT_TRUE(at::equal(got.steps[s], want.steps[s]))
        << what << ": step " << s << " differs by "
        << (got.steps[s] - want.steps[s]).abs().max().item<float>();
  }
}

void CheckModel(const std::filesystem::path& dir, at::ScalarType dtype) {
  const Trace alone = RunOne(dir, dtype, {});
  ExpectSame(RunOne(dir, dtype, {.chunk = 1}), alone, "prefill in chunks of 1");
  ExpectSame(RunOne(dir, dtype, {.chunk = 3}), alone, "prefill in chunks of 3");
  ExpectSame(RunOne(dir, dtype, {.page_tokens = 4}), alone, "KV pages of 4 tokens");
  ExpectSame(RunOne(dir, dtype, {.companions = true}), alone, "decoded with 2 other sequences");
  ExpectSame(RunOne(dir, dtype, {.page_tokens = 4, .chunk = 3, .companions = true, .mixed_prefill = true}),
             alone, "chunks of 3 sharing steps with other sequences' decode, pages of 4");
  ExpectSame(RunOne(dir, dtype, {.companions = true, .mixed_prefill = true}), alone,
             "the whole prompt in a step with other sequences' decode");
}

TEST(Qwen2DecoderInvariance, Bf16LogitsDoNotDependOnTheBatchChunkOrPages) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  CheckModel(shared / "golden" / "text-untied-bf16", at::kBFloat16);
}

TEST(Qwen2DecoderInvariance, Float32LogitsDoNotDependOnTheBatchChunkOrPages) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  CheckModel(shared / "golden" / "text-tied-f32", at::kFloat);
}

}  // namespace
}  // namespace mineru::engine
