// Command line of mineru-infer, parsed and validated (kept apart from main so tests can reach it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace mineru::engine {

struct InferOptions {
  std::string model_dir;
  std::optional<std::string> prompt;           // --prompt TEXT
  std::optional<std::vector<int64_t>> tokens;  // --tokens 1,2,3
  std::optional<std::string> image_path;       // --image PAGE.png
  std::optional<std::string> pixels_path;      // --pixels P.safetensors
  int64_t image_width = 0;                     // --image-size W,H
  int64_t image_height = 0;
  int64_t generate = 0;
  std::optional<int64_t> no_repeat_ngram;  // default: the checkpoint's generation config (100)
  std::optional<std::string> logits_out;
  std::optional<uint64_t> vram_budget_bytes;
  std::optional<double> vram_budget_fraction;  // "--vram-budget 50%": of the weights' compute bytes
  int64_t kv_page_tokens = 16;
  int64_t prefill_chunk = 512;
  std::string dtype = "f32";
  int64_t threads = 0;  // 0: one per usable CPU (common/cpu_count.h)
  bool help = false;
};

// Parses argv[1..]; errors name the flag.
Result<InferOptions> ParseInferOptions(const std::vector<std::string>& args);
extern const char kInferUsage[];

}  // namespace mineru::engine
