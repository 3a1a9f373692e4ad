// DecoderWorkspaceBytes is an upper bound of what a decoder forward really allocates: libtorch's CPU
// allocator reports every allocation and free of this thread to a memory reporter installed for the
// forward (c10's profiler hook), and the peak of live bytes stays within the bound for prefill chunks
// (with and without every row's logits), a chunk that spans several key blocks, and a batched decode
// step, in float32 and bfloat16. The bound is not loose beyond a small factor, and it does not grow with the
// context beyond the key block (never L x L).
#include "engine/decoder_workspace.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/mineru2_model.h"
#include "tests/engine/allocation_meter.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

struct Measured {
  int64_t peak = 0;
  uint64_t bound = 0;
};

// Runs one forward under the meter; the decoder reports the bound it used for it.
template <typename F>
Measured Measure(const Qwen2Decoder& decoder, F&& forward) {
  const int64_t peak = testing::PeakAllocatedBytes(std::forward<F>(forward));
  return {peak, decoder.last_workspace_bytes()};
}

TEST(DecoderWorkspaceTest, BoundCoversWhatAForwardAllocates) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  for (auto [dir, dtype] : {std::pair<const char*, at::ScalarType>{"text-tied-f32", at::kFloat},
                            {"vlm-untied-f32", at::kFloat},
                            {"text-untied-bf16", at::kBFloat16}}) {
    SCOPED_TRACE(dir);
    ModelOptions mo;
    mo.compute_dtype = dtype;
    mo.attention_key_block_tokens = 64;
    auto model = Mineru2Model::Load(shared / "golden" / dir, mo);
    ASSERT_TRUE(model.ok()) << model.status().ToString();
    const Qwen2Decoder& decoder = (*model)->decoder();
    std::vector<int64_t> prompt;
    for (int64_t i = 0; i < 300; ++i) prompt.push_back((i * 37 + 5) % 290);
    const at::Tensor embeds = *(*model)->EmbedPrompt(prompt, nullptr);
    // Warm-up: anything a weight source materialises on first use is not the forward's workspace.
    {
      KvSequence warm;
      ASSERT_TRUE(decoder.Prefill(warm, embeds.narrow(0, 0, 4), 4, false).ok());
      decoder.cache().Free(warm);
    }
    std::vector<Measured> runs;
    KvSequence a, b, c;
    // A chunk of 200 rows with every row's logits, over keys in 4 blocks of 64.
    runs.push_back(Measure(decoder, [&] {
      DecoderInput in{&a, embeds.narrow(0, 0, 200), true};
      ASSERT_TRUE(decoder.Forward(std::span<const DecoderInput>(&in, 1)).ok());
    }));
    // The next 100 rows after 200 cached ones, last logits only.
    runs.push_back(Measure(decoder, [&] {
      DecoderInput in{&a, embeds.narrow(0, 200, 100), false};
      ASSERT_TRUE(decoder.Forward(std::span<const DecoderInput>(&in, 1)).ok());
    }));
    ASSERT_TRUE(decoder.Prefill(b, embeds.narrow(0, 0, 37), 16, false).ok());
    ASSERT_TRUE(decoder.Prefill(c, embeds.narrow(0, 0, 5), 16, false).ok());
    // One batched decode step of three sequences of different lengths.
    runs.push_back(Measure(decoder, [&] {
      std::vector<DecoderInput> in = {{&a, embeds.narrow(0, 7, 1), false},
                                      {&b, embeds.narrow(0, 8, 1), false},
                                      {&c, embeds.narrow(0, 9, 1), false}};
      ASSERT_TRUE(decoder.Forward(in).ok());
    }));
    for (KvSequence* s : {&a, &b, &c}) decoder.cache().Free(*s);
    for (size_t i = 0; i < runs.size(); ++i) {
      SCOPED_TRACE(i);
      EXPECT_GT(runs[i].peak, 0);
      EXPECT_LE(static_cast<uint64_t>(runs[i].peak), runs[i].bound);
      // A sum over every tensor (as if none were freed within a layer; in float32 the dtype casts that
      // the bound counts are no-ops): loose by a small factor, never by orders of magnitude. Up to 3.5x
      // here, for a 200-row chunk with every row's logits in bf16, whose widened products and fused
      // attention free most of what they allocate before the next term does.
      EXPECT_LE(runs[i].bound, 8 * static_cast<uint64_t>(runs[i].peak));
      std::printf("%s forward %zu: allocated at most %lld bytes, bound %llu (%.2fx)\n", dir, i,
                  static_cast<long long>(runs[i].peak), static_cast<unsigned long long>(runs[i].bound),
                  static_cast<double>(runs[i].bound) / static_cast<double>(runs[i].peak));
    }
  }
}

TEST(DecoderWorkspaceTest, BoundDependsOnTheChunkAndKeyBlockNotOnTheContext) {
  TextConfig c;  // MinerU 2.0's decoder (Qwen2-0.5B)
  c.hidden_size = 896;
  c.num_layers = 24;
  c.num_heads = 14;
  c.num_kv_heads = 2;
  c.head_dim = 64;
  c.intermediate_size = 4864;
  c.vocab_size = 151936;
  DecoderWorkspaceShape s;
  s.rows = s.max_slice_rows = 512;
  s.logit_rows = 1;
  s.key_block_tokens = 512;
  s.max_keys = 1024;
  const uint64_t short_context = DecoderWorkspaceBytes(c, at::kBFloat16, s);
  s.max_keys = 16384;
  EXPECT_EQ(DecoderWorkspaceBytes(c, at::kBFloat16, s), short_context);
  s.rows = s.max_slice_rows = 1024;
  EXPECT_GT(DecoderWorkspaceBytes(c, at::kBFloat16, s), short_context);
  // A 512-token prefill chunk of the real model needs tens of MiB, not the GiB an L x L score matrix
  // of a 7k-token page would take.
  EXPECT_LT(short_context, uint64_t{128} << 20);
  std::printf("MinerU 2.0 decoder, bf16, chunk 512, key block 512: workspace bound %.1f MiB\n",
              static_cast<double>(short_context) / (1 << 20));
  // On the CPU, bf16 products widen their operands to float32 (dense_ops.h) while the fused row
  // kernels and attention allocate less than ATen's operations: as bounded, and still independent of
  // the context.
  s.rows = s.max_slice_rows = 512;
  s.on_cpu = true;
  const uint64_t cpu = DecoderWorkspaceBytes(c, at::kBFloat16, s);
  EXPECT_LT(cpu, uint64_t{128} << 20);
  s.max_keys = 1024;
  EXPECT_EQ(DecoderWorkspaceBytes(c, at::kBFloat16, s), cpu);
  std::printf("the same on the CPU: %.1f MiB\n", static_cast<double>(cpu) / (1 << 20));
}

}  // namespace
}  // namespace mineru::engine
