// ModelConfig: what a MinerU 2.0 (or plain Qwen2) model folder says about itself, read from
// config.json, the vision sub-folder config (<dir>/<mm_vision_tower>/config.json) and
// generation_config.json (optional). Every error names the file and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"

namespace mineru::engine {

struct TextConfig {
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;  // hidden_size / num_heads
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;
  int64_t max_position_embeddings = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  // From config.json; the checkpoint decides in the end (no lm_head.weight tensor means tied).
  bool tie_word_embeddings = false;
  std::string torch_dtype;  // "bfloat16", "float32", ...
};

struct VisionConfig {
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_layers = 0;       // as written in the file
  int64_t num_used_layers = 0;  // the layers that run: num_layers + 1 + mm_vision_select_layer
  int64_t num_heads = 0;
  int64_t head_dim = 0;
  int64_t num_channels = 3;
  int64_t image_size = 0;
  int64_t patch_size = 0;
  int64_t patches_per_side = 0;  // image_size / patch_size
  double layer_norm_eps = 1e-6;
};

struct MultimodalConfig {
  int64_t image_token_index = 151646;
  int64_t mm_hidden_size = 1152;
  std::string vision_tower;      // sub-folder name holding the vision config
  int64_t max_grid_side = 4;     // from image_grid_pinpoints "(1x1),...,(NxN)"
  int64_t anyres_max_tiles = 9;  // from image_aspect_ratio "square_anyres_max_N"
  VisionConfig vision;
};

struct GenerationConfig {
  std::vector<int64_t> eos_token_ids;
  int64_t max_new_tokens = 16384;
  int64_t no_repeat_ngram_size = 100;
};

struct ModelConfig {
  std::string model_type;  // "mineru2_qwen" or "qwen2"
  TextConfig text;
  std::optional<MultimodalConfig> multimodal;  // absent for a text-only Qwen2 model
  GenerationConfig generation;

  // Reads a model folder. generation_config.json is optional (eos then comes from config.json).
  static Result<ModelConfig> Load(const std::filesystem::path& dir);
  // Parses config.json text and, for a multimodal model, the vision config text. Used by Load and tests.
  static Result<ModelConfig> Parse(const std::string& config_json, const std::string& config_name,
                                   const std::optional<std::string>& vision_json,
                                   const std::string& vision_name,
                                   const std::optional<std::string>& generation_json);
};

// Reads a whole small text file; errors name the path.
Result<std::string> ReadTextFile(const std::filesystem::path& path);

}  // namespace mineru::engine
