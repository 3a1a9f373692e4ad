// engine_bench: the MinerU 2.0 engine at full size on this CPU with random weights (--dummy-weights:
// generated in memory from examples/mineru2-0.9b-config, nothing downloaded), each throughput printed
// next to its limit measured in the same run (before and after what it limits; the higher counts):
//   vision encode crops/s   vs  matmul GFLOP/s on the vision layer's shapes
//   prefill tokens/s        vs  matmul GFLOP/s on the decoder layer's shapes (chunk rows)
//   decode tokens/s (batch) vs  weight bytes read per step / measured copy bandwidth
// and the peak host memory of the run.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/cpu_count.h"
#include "engine/dummy_checkpoint.h"
#include "engine/generator.h"
#include "engine/host_allocator.h"
#include "engine/mineru2_model.h"
#include "engine/model_memory.h"
#include "engine/paged_kv_cache.h"
#include "engine/residency_weight_source.h"
#include "residency/host_device.h"
#include "residency/residency_manager.h"

namespace mineru::engine {
namespace {

struct BenchOptions {
  std::string config_dir = MINERU_SOURCE_DIR "/examples/mineru2-0.9b-config";
  int64_t crops = 17;
  int64_t prefill_tokens = 7400;
  int64_t prefill_chunk = 512;
  int64_t decode_context = 256;
  int64_t decode_steps = 16;
  std::string dtype = "bf16";
  int threads = 0;
  int64_t vision_chunk = ModelOptions().vision_crops_per_chunk;
  int64_t decode_rounds = 3;
  bool vision = true, prefill = true, decode = true;  // --parts
};

// "vision,prefill,decode" or any subset.
bool ParseParts(const std::string& list, BenchOptions& o) {
  o.vision = o.prefill = o.decode = false;
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t end = std::min(list.find(',', begin), list.size());
    const std::string part = list.substr(begin, end - begin);
    if (part == "vision") {
      o.vision = true;
    } else if (part == "prefill") {
      o.prefill = true;
    } else if (part == "decode") {
      o.decode = true;
    } else {
      return false;
    }
    begin = end + 1;
  }
  return true;
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// Seconds per call of fn, best of `reps` after one warm-up.
template <typename F>
double Time(F fn, int reps) {
  fn();
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    Stopwatch sw;
    fn();
    best = std::min(best, sw.ElapsedSeconds());
  }
  return best;
}

// GFLOP/s of float32 at::linear (this machine's BLAS) over a list of (rows, in, out) shapes, timed
// together: the fastest dense product this CPU offers, whatever the model's dtype. In bf16 the engine
// reaches it through widened operands (engine/dense_ops.h); libtorch's own CPU bf16 GEMM would be a far
// lower limit (≈50x slower without AVX512-BF16).
double MatmulGflops(const std::vector<std::array<int64_t, 3>>& shapes) {
  std::vector<at::Tensor> xs, ws;
  double flops = 0;
  for (const auto& s : shapes) {
    xs.push_back(at::randn({s[0], s[1]}));
    ws.push_back(at::randn({s[2], s[1]}));
    flops += 2.0 * s[0] * s[1] * s[2];
  }
  const double t = Time(
      [&] {
        for (size_t i = 0; i < xs.size(); ++i) (void)at::linear(xs[i], ws[i]);
      },
      3);
  return flops / t / 1e9;
}

// Bytes read per second by a large tensor copy (each byte is read once and written once).
double CopyBandwidthGBs() {
  at::Tensor src = at::ones({256 << 20}, at::kByte);
  at::Tensor dst = at::empty_like(src);
  const double t = Time([&] { dst.copy_(src); }, 3);
  return src.numel() / t / 1e9;
}

int Run(const BenchOptions& o) {
  KeepFreedHostMemoryForReuse();
  // Every core by default (libtorch's own default may count physical cores only).
  at::set_num_threads(o.threads > 0 ? o.threads : UsableCpus());
  auto config = ModelConfig::Load(o.config_dir);
  if (!config.ok()) {
    std::fprintf(stderr, "engine_bench: %s\n", config.status().ToString().c_str());
    return 1;
  }
  const at::ScalarType dtype = o.dtype == "f32" ? at::kFloat : at::kBFloat16;
  const TextConfig& t = config->text;
  const VisionConfig& v = config->multimodal->vision;
  std::printf("engine_bench: MinerU2.0 full-size config, random weights, %s, %d threads\n", o.dtype.c_str(),
              at::get_num_threads());
  Stopwatch gen_clock;
  auto checkpoint =
      MakeDummyCheckpoint(*config, dtype == at::kFloat ? StorageDtype::kF32 : StorageDtype::kBF16, 1234);
  if (!checkpoint.ok()) {
    std::fprintf(stderr, "engine_bench: %s\n", checkpoint.status().ToString().c_str());
    return 1;
  }
  auto units = ListModelUnits(**checkpoint, *config);
  if (!units.ok()) {
    std::fprintf(stderr, "engine_bench: %s\n", units.status().ToString().c_str());
    return 1;
  }
  ModelOptions mo;
  mo.compute_dtype = dtype;
  mo.vision_crops_per_chunk = o.vision_chunk;
  // The prefill page, then decode batches of up to 16 sequences (one page of slack each).
  const int64_t decode_keys = o.decode_context + 16 + o.decode_steps + 2;
  mo.kv_capacity_tokens = o.prefill_tokens + 16 * (decode_keys + mo.kv_page_tokens);
  // Weights, KV pages and each forward's workspace go through a residency manager (HostDevice: this
  // CPU's memory), as in mineru-infer and the daemon: the generated safetensors image is its disk
  // tier, and its budget (the memory plan's, engine/model_memory.h) holds every weight, the pool and
  // the largest forward's bound (the prefill chunk's, a 16-sequence decode step's or the vision encode's).
  InferMemoryRequest request;
  request.units = *units;
  request.weight_budget_fraction = 1.0;
  request.compute_dtype = dtype;
  request.kv_page_tokens = mo.kv_page_tokens;
  request.kv_capacity_tokens = mo.kv_capacity_tokens;
  request.prompt_tokens = o.prefill_tokens;
  request.prefill_chunk = o.prefill_chunk;
  request.decode_sequences = 16;
  request.decode_max_keys = decode_keys;
  request.key_block_tokens = mo.attention_key_block_tokens;
  request.vision_crops = o.crops;
  request.vision_crops_per_chunk = mo.vision_crops_per_chunk;
  request.vision_crops_per_attention = mo.vision_crops_per_attention;
  const InferMemory memory = PlanInferMemory(*config, request);
  std::printf("weights: %.2f GB generated in %.1f s\n", memory.weights_total_bytes / 1e9,
              gen_clock.ElapsedSeconds());
  residency::HostDevice device;
  residency::ResidencyOptions ro;
  ro.gpu_budget_bytes = memory.gpu_budget_bytes;
  ro.pinned_budget_bytes = 0;
  auto manager = residency::ResidencyManager::Create(&device, ro);
  if (!manager.ok()) {
    std::fprintf(stderr, "engine_bench: %s\n", manager.status().ToString().c_str());
    return 1;
  }
  mo.residency = manager->get();
  auto weights = ResidencyWeightSource::Create(*checkpoint, std::move(*units), mo.residency, dtype);
  if (!weights.ok()) {
    std::fprintf(stderr, "engine_bench: %s\n", weights.status().ToString().c_str());
    return 1;
  }
  auto model = Mineru2Model::FromSource(*config, std::move(*weights), mo);
  if (!model.ok()) {
    std::fprintf(stderr, "engine_bench: %s\n", model.status().ToString().c_str());
    return 1;
  }
  Mineru2Model& m = **model;

  // Vision: crops through SigLIP + projector.
  if (o.vision) {
    const int64_t patches = v.patches_per_side * v.patches_per_side;
    const int64_t rows = o.crops * patches;
    const std::vector<std::array<int64_t, 3>> shapes = {
        {rows, v.hidden_size, v.hidden_size},       {rows, v.hidden_size, v.hidden_size},
        {rows, v.hidden_size, v.hidden_size},       {rows, v.hidden_size, v.hidden_size},
        {rows, v.hidden_size, v.intermediate_size}, {rows, v.intermediate_size, v.hidden_size}};
    const double layer_linear =
        2.0 * rows * v.hidden_size * (4.0 * v.hidden_size + 2.0 * v.intermediate_size);
    const double layer_attn = 4.0 * o.crops * patches * patches * v.hidden_size;
    const double proj = 2.0 * rows * (v.hidden_size * t.hidden_size + t.hidden_size * t.hidden_size);
    const double conv = 2.0 * rows * v.hidden_size * 3 * v.patch_size * v.patch_size;
    const double flops = v.num_used_layers * (layer_linear + layer_attn) + proj + conv;
    at::Tensor pixels = at::rand({o.crops, 3, v.image_size, v.image_size}) * 2 - 1;
    const double limit_before = MatmulGflops(shapes);
    // Warm-up on one crop: the vision weights come up from the disk tier once, outside the timing.
    if (auto warm = m.EncodeCrops(pixels.narrow(0, 0, 1), false); !warm.ok()) {
      std::fprintf(stderr, "engine_bench: %s\n", warm.status().ToString().c_str());
      return 1;
    }
    Stopwatch sw;
    auto out = m.EncodeCrops(pixels, false);
    const double s = sw.ElapsedSeconds();
    if (!out.ok()) {
      std::fprintf(stderr, "engine_bench: %s\n", out.status().ToString().c_str());
      return 1;
    }
    const double gflops = std::max(limit_before, MatmulGflops(shapes));
    const double achieved = flops / s / 1e9;
    std::printf(
        "vision   %3ld crops: %7.3f crops/s  %7.1f GFLOP/s | matmul limit %7.1f GFLOP/s = %6.3f crops/s"
        " | %5.1f%% of limit\n",
        static_cast<long>(o.crops), o.crops / s, achieved, gflops, gflops * 1e9 / (flops / o.crops),
        100.0 * achieved / gflops);
  }
  // Prefill: one page-sized prompt in chunks.
  if (o.prefill) {
    const int64_t n = o.prefill_tokens;
    const int64_t kv = t.num_kv_heads * t.head_dim;
    const int64_t c = std::min(o.prefill_chunk, n);
    const std::vector<std::array<int64_t, 3>> shapes = {{c, t.hidden_size, t.hidden_size},
                                                        {c, t.hidden_size, kv},
                                                        {c, t.hidden_size, kv},
                                                        {c, t.hidden_size, t.hidden_size},
                                                        {c, t.hidden_size, t.intermediate_size},
                                                        {c, t.hidden_size, t.intermediate_size},
                                                        {c, t.intermediate_size, t.hidden_size}};
    const double per_token_linear =
        2.0 * t.num_layers * t.hidden_size * (2.0 * t.hidden_size + 2.0 * kv + 3.0 * t.intermediate_size);
    const double attn = 4.0 * t.num_layers * t.hidden_size * (static_cast<double>(n) * n / 2.0);
    const double flops = n * per_token_linear + attn + 2.0 * t.hidden_size * t.vocab_size;
    at::Tensor embeds = at::randn({n, t.hidden_size}).mul_(0.02).to(dtype);
    const double limit_before = MatmulGflops(shapes);
    KvSequence seq;
    Stopwatch sw;
    auto logits = m.decoder().Prefill(seq, embeds, o.prefill_chunk, false);
    const double s = sw.ElapsedSeconds();
    m.kv_cache().Free(seq);
    if (!logits.ok()) {
      std::fprintf(stderr, "engine_bench: %s\n", logits.status().ToString().c_str());
      return 1;
    }
    const double gflops = std::max(limit_before, MatmulGflops(shapes));
    const double achieved = flops / s / 1e9;
    std::printf(
        "prefill %5ld tokens (chunk %ld): %8.1f tokens/s  %7.1f GFLOP/s | matmul limit %7.1f GFLOP/s ="
        " %8.1f tokens/s | %5.1f%% of limit\n",
        static_cast<long>(n), static_cast<long>(o.prefill_chunk), n / s, achieved, gflops,
        gflops * 1e9 / (flops / n), 100.0 * achieved / gflops);
  }
  // Decode: batches of sequences with `decode_context` tokens of context. The batch sizes take turns,
  // `decode_rounds` times, and each keeps its best round: the ratio between batch sizes then compares
  // like with like on a machine whose speed drifts during the run. Every limit is measured before and
  // after what it limits, and the higher one is used.
  if (o.decode) {
    const double bw_before = CopyBandwidthGBs();
    uint64_t step_bytes = 0;  // weights read by one decode step: every decoder layer, the norm and the head
    for (const auto& u : m.weights().units()) {
      if (u.kind == UnitKind::kDecoderLayer || u.kind == UnitKind::kHead) step_bytes += u.size_bytes;
    }
    if (m.weights().tied())
      step_bytes += static_cast<uint64_t>(t.vocab_size) * t.hidden_size * c10::elementSize(dtype);
    const std::vector<int64_t> batches = {1, 4, 16};
    std::vector<double> best(batches.size(), 0.0);
    int64_t steps = 0;
    for (int64_t round = 0; round < std::max<int64_t>(1, o.decode_rounds); ++round) {
      for (size_t i = 0; i < batches.size(); ++i) {
        const int64_t batch = batches[i];
        std::vector<GenerationRequest> reqs(batch);
        for (int64_t b = 0; b < batch; ++b) {
          reqs[b].prompt_embeds = at::randn({o.decode_context + b, t.hidden_size}).mul_(0.02).to(dtype);
          reqs[b].sampling.max_new_tokens = o.decode_steps + 1;
          reqs[b].sampling.no_repeat_ngram_size = 0;
        }
        auto r = Generate(m.decoder(), reqs, {o.prefill_chunk});
        if (!r.ok()) {
          std::fprintf(stderr, "engine_bench: %s\n", r.status().ToString().c_str());
          return 1;
        }
        const auto& res = (*r)[0];
        steps = res.decode_steps;
        best[i] = std::max(best[i], batch * res.decode_steps / (res.decode_ms / 1e3));
      }
    }
    const double bw = std::max(bw_before, CopyBandwidthGBs());
    const double limit1 = bw * 1e9 / step_bytes;
    std::printf(
        "decode: %.1f MB of weights read per step, copy bandwidth %.2f GB/s -> batch-1 limit %.2f tokens/s\n",
        step_bytes / 1e6, bw, limit1);
    for (size_t i = 0; i < batches.size(); ++i) {
      std::printf(
          "decode batch %2ld: %8.2f tokens/s (%ld steps, best of %ld) | bandwidth limit %8.2f tokens/s |"
          " %5.1f%% of limit | %.2fx batch 1\n",
          static_cast<long>(batches[i]), best[i], static_cast<long>(steps),
          static_cast<long>(std::max<int64_t>(1, o.decode_rounds)), limit1 * batches[i],
          100.0 * best[i] / (limit1 * batches[i]), best[i] / best[0]);
    }
  }
  const residency::Stats stats = (*manager)->GetStats();
  const residency::TierStats& gpu = stats.tiers[static_cast<int>(residency::Tier::kGpu)];
  std::printf(
      "residency manager (kGpu = host memory here): weights %.0f MiB resident, KV pool %.0f MiB, peak %.0f of"
      " %.0f MiB budget, %.0f MiB promoted, %llu evictions\n",
      gpu.weight_bytes / 1048576.0, gpu.kv_bytes / 1048576.0, gpu.peak_bytes / 1048576.0,
      gpu.budget_bytes / 1048576.0, stats.bytes_promoted / 1048576.0,
      static_cast<unsigned long long>(stats.evictions));
  std::printf("peak host memory: %.0f MiB\n", PeakRssMiB());
  return 0;
}

}  // namespace
}  // namespace mineru::engine

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  mineru::engine::BenchOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "engine_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--dummy-weights") {
      // The only weight source of this benchmark; accepted for clarity.
    } else if (a == "--config") {
      o.config_dir = next();
    } else if (a == "--crops") {
      o.crops = std::stoll(next());
    } else if (a == "--prefill-tokens") {
      o.prefill_tokens = std::stoll(next());
    } else if (a == "--prefill-chunk") {
      o.prefill_chunk = std::stoll(next());
    } else if (a == "--decode-context") {
      o.decode_context = std::stoll(next());
    } else if (a == "--decode-steps") {
      o.decode_steps = std::stoll(next());
    } else if (a == "--dtype") {
      o.dtype = next();
    } else if (a == "--vision-chunk") {
      o.vision_chunk = std::stoll(next());
    } else if (a == "--decode-rounds") {
      o.decode_rounds = std::stoll(next());
    } else if (a == "--parts") {
      if (!ParseParts(next(), o)) {
        std::fprintf(stderr, "engine_bench: --parts takes a list of vision, prefill, decode\n");
        return 2;
      }
    } else if (a == "--threads") {
      o.threads = std::stoi(next());
    } else {
      std::fprintf(
          stderr,
          "usage: engine_bench --dummy-weights [--config DIR] [--crops 17] [--prefill-tokens 7400]\n"
          "       [--prefill-chunk 512] [--decode-context 256] [--decode-steps 16] [--decode-rounds 3]\n"
          "       [--dtype bf16|f32] [--vision-chunk 4] [--parts vision,prefill,decode] [--threads N]\n");
      return 2;
    }
  }
  return mineru::engine::Run(o);
}
