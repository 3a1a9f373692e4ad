#include "engine/model_config.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace mineru::engine {
namespace {

using nlohmann::json;

// Typed lookups that name the file and the key in every error.
class JsonReader {
 public:
  JsonReader(const json& j, std::string file) : j_(j), file_(std::move(file)) {}

  Status Error(const std::string& key, const std::string& what) const {
    return InvalidArgument(file_ + ": key \"" + key + "\" " + what);
  }
  bool Has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  Result<int64_t> Int(const std::string& key, std::optional<int64_t> fallback = std::nullopt,
                      int64_t min = 1) const {
    if (!Has(key)) {
      if (fallback) return *fallback;
      return Error(key, "is missing");
    }
    const json& v = j_.at(key);
    if (!v.is_number_integer()) return Error(key, "is not an integer");
    const int64_t x = v.get<int64_t>();
    if (x < min) return Error(key, "is " + std::to_string(x) + ", below " + std::to_string(min));
    return x;
  }
  Result<double> Double(const std::string& key, std::optional<double> fallback = std::nullopt) const {
    if (!Has(key)) {
      if (fallback) return *fallback;
      return Error(key, "is missing");
    }
    const json& v = j_.at(key);
    if (!v.is_number()) return Error(key, "is not a number");
    const double x = v.get<double>();
    if (!(x > 0)) return Error(key, "must be positive");
    return x;
  }
  Result<std::string> String(const std::string& key,
                             std::optional<std::string> fallback = std::nullopt) const {
    if (!Has(key)) {
      if (fallback) return *fallback;
      return Error(key, "is missing");
    }
    const json& v = j_.at(key);
    if (!v.is_string()) return Error(key, "is not a string");
    return v.get<std::string>();
  }
  Result<bool> Bool(const std::string& key, bool fallback) const {
    if (!Has(key)) return fallback;
    const json& v = j_.at(key);
    if (!v.is_boolean()) return Error(key, "is not a boolean");
    return v.get<bool>();
  }
  // An int or a list of ints.
  Result<std::vector<int64_t>> IntList(const std::string& key) const {
    std::vector<int64_t> out;
    if (!Has(key)) return out;
    const json& v = j_.at(key);
    if (v.is_number_integer()) {
      out.push_back(v.get<int64_t>());
    } else if (v.is_array()) {
      for (const auto& e : v) {
        if (!e.is_number_integer()) return Error(key, "holds a non-integer");
        out.push_back(e.get<int64_t>());
      }
    } else {
      return Error(key, "is neither an integer nor a list of integers");
    }
    return out;
  }

 private:
  const json& j_;
  std::string file_;
};

Result<json> ParseJson(const std::string& text, const std::string& name) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(name + ": not valid JSON");
  if (!j.is_object()) return InvalidArgument(name + ": not a JSON object");
  return j;
}

Result<TextConfig> ParseText(const JsonReader& r) {
  TextConfig t;
  MINERU_ASSIGN_OR_RETURN(t.hidden_size, r.Int("hidden_size"));
  MINERU_ASSIGN_OR_RETURN(t.num_layers, r.Int("num_hidden_layers"));
  MINERU_ASSIGN_OR_RETURN(t.num_heads, r.Int("num_attention_heads"));
  MINERU_ASSIGN_OR_RETURN(t.num_kv_heads, r.Int("num_key_value_heads", t.num_heads));
  MINERU_ASSIGN_OR_RETURN(t.intermediate_size, r.Int("intermediate_size"));
  MINERU_ASSIGN_OR_RETURN(t.vocab_size, r.Int("vocab_size"));
  MINERU_ASSIGN_OR_RETURN(t.max_position_embeddings, r.Int("max_position_embeddings", 32768));
  MINERU_ASSIGN_OR_RETURN(t.rms_norm_eps, r.Double("rms_norm_eps", 1e-6));
  MINERU_ASSIGN_OR_RETURN(t.rope_theta, r.Double("rope_theta", 10000.0));
  MINERU_ASSIGN_OR_RETURN(t.tie_word_embeddings, r.Bool("tie_word_embeddings", false));
  MINERU_ASSIGN_OR_RETURN(t.torch_dtype, r.String("torch_dtype", std::string("float32")));
  if (t.hidden_size % t.num_heads != 0) {
    return r.Error("num_attention_heads", "does not divide hidden_size " + std::to_string(t.hidden_size));
  }
  if (t.num_heads % t.num_kv_heads != 0) {
    return r.Error("num_key_value_heads",
                   "does not divide num_attention_heads " + std::to_string(t.num_heads));
  }
  t.head_dim = t.hidden_size / t.num_heads;
  if (t.head_dim % 2 != 0) return r.Error("num_attention_heads", "gives an odd head_dim (rotary needs even)");
  if (t.num_layers > 4096 || t.hidden_size > (1 << 20) || t.vocab_size > (1 << 24) ||
      t.intermediate_size > (1 << 22)) {
    return r.Error("hidden_size", "or another dimension is implausibly large");
  }
  return t;
}

Result<VisionConfig> ParseVision(const JsonReader& r, int64_t select_layer) {
  VisionConfig v;
  MINERU_ASSIGN_OR_RETURN(v.hidden_size, r.Int("hidden_size"));
  MINERU_ASSIGN_OR_RETURN(v.intermediate_size, r.Int("intermediate_size"));
  MINERU_ASSIGN_OR_RETURN(v.num_layers, r.Int("num_hidden_layers"));
  MINERU_ASSIGN_OR_RETURN(v.num_heads, r.Int("num_attention_heads"));
  MINERU_ASSIGN_OR_RETURN(v.num_channels, r.Int("num_channels", 3));
  MINERU_ASSIGN_OR_RETURN(v.image_size, r.Int("image_size"));
  MINERU_ASSIGN_OR_RETURN(v.patch_size, r.Int("patch_size"));
  MINERU_ASSIGN_OR_RETURN(v.layer_norm_eps, r.Double("layer_norm_eps", 1e-6));
  MINERU_ASSIGN_OR_RETURN(std::string act, r.String("hidden_act", std::string("gelu_pytorch_tanh")));
  if (act != "gelu_pytorch_tanh")
    return r.Error("hidden_act", "is \"" + act + "\"; only gelu_pytorch_tanh runs");
  if (v.hidden_size % v.num_heads != 0) return r.Error("num_attention_heads", "does not divide hidden_size");
  v.head_dim = v.hidden_size / v.num_heads;
  if (v.patch_size > v.image_size) return r.Error("patch_size", "is larger than image_size");
  v.patches_per_side = v.image_size / v.patch_size;
  // hidden_states[k] is the output of layer k (0 = the embeddings), N + 1 entries in all.
  v.num_used_layers = v.num_layers + 1 + select_layer;
  if (v.num_used_layers < 1 || v.num_used_layers > v.num_layers) {
    return r.Error("num_hidden_layers",
                   "and mm_vision_select_layer " + std::to_string(select_layer) + " select no encoder layer");
  }
  return v;
}

Result<MultimodalConfig> ParseMultimodal(const JsonReader& r, const std::string& config_name) {
  MultimodalConfig m;
  MINERU_ASSIGN_OR_RETURN(m.image_token_index, r.Int("image_token_index", 151646, 0));
  MINERU_ASSIGN_OR_RETURN(m.mm_hidden_size, r.Int("mm_hidden_size", 1152));
  MINERU_ASSIGN_OR_RETURN(m.vision_tower, r.String("mm_vision_tower"));
  MINERU_ASSIGN_OR_RETURN(std::string projector, r.String("mm_projector_type", std::string("mlp2x_gelu")));
  if (projector != "mlp2x_gelu")
    return r.Error("mm_projector_type", "is \"" + projector + "\"; only mlp2x_gelu");
  MINERU_ASSIGN_OR_RETURN(std::string feature, r.String("mm_vision_select_feature", std::string("full")));
  if (feature != "full") return r.Error("mm_vision_select_feature", "is \"" + feature + "\"; only full");
  MINERU_ASSIGN_OR_RETURN(std::string merge, r.String("mm_patch_merge_type", std::string("spatial_unpad")));
  if (merge != "spatial_unpad")
    return r.Error("mm_patch_merge_type", "is \"" + merge + "\"; only spatial_unpad");
  MINERU_ASSIGN_OR_RETURN(std::string aspect,
                          r.String("image_aspect_ratio", std::string("square_anyres_max_9")));
  const std::string prefix = "square_anyres_max_";
  if (aspect.rfind(prefix, 0) != 0 || aspect.size() == prefix.size() ||
      aspect.find_first_not_of("0123456789", prefix.size()) != std::string::npos || aspect.size() > 22) {
    return r.Error("image_aspect_ratio", "is \"" + aspect + "\"; expected square_anyres_max_N");
  }
  m.anyres_max_tiles = std::stoll(aspect.substr(prefix.size()));
  if (m.anyres_max_tiles < 1) return r.Error("image_aspect_ratio", "has N < 1");
  MINERU_ASSIGN_OR_RETURN(std::string pinpoints,
                          r.String("image_grid_pinpoints", std::string("(1x1),...,(4x4)")));
  int a = 0, b = 0, c = 0, d = 0;
  char tail = 0;
  if (std::sscanf(pinpoints.c_str(), "(%dx%d),...,(%dx%d)%c", &a, &b, &c, &d, &tail) != 4 || a != 1 ||
      b != 1 || c != d || c < 1 || c > 16) {
    return r.Error("image_grid_pinpoints", "is \"" + pinpoints + "\"; expected (1x1),...,(NxN)");
  }
  m.max_grid_side = c;
  MINERU_ASSIGN_OR_RETURN(int64_t select_layer, r.Int("mm_vision_select_layer", -2, INT64_MIN));
  (void)config_name;
  m.vision.num_used_layers = select_layer;  // resolved once the vision config is read
  return m;
}

}  // namespace

Result<std::string> ReadTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path.string() + ": cannot open (missing?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status(StatusCode::kIoError, path.string() + ": read failed");
  return ss.str();
}

Result<ModelConfig> ModelConfig::Parse(const std::string& config_json, const std::string& config_name,
                                       const std::optional<std::string>& vision_json,
                                       const std::string& vision_name,
                                       const std::optional<std::string>& generation_json) {
  MINERU_ASSIGN_OR_RETURN(json j, ParseJson(config_json, config_name));
  JsonReader r(j, config_name);
  ModelConfig c;
  MINERU_ASSIGN_OR_RETURN(c.model_type, r.String("model_type"));
  if (c.model_type != "mineru2_qwen" && c.model_type != "qwen2") {
    return r.Error("model_type", "is \"" + c.model_type + "\"; this engine runs mineru2_qwen and qwen2");
  }
  if (r.Has("rope_scaling")) return r.Error("rope_scaling", "is set; MinerU 2.0 runs without rope scaling");
  MINERU_ASSIGN_OR_RETURN(c.text, ParseText(r));
  MINERU_ASSIGN_OR_RETURN(c.generation.eos_token_ids, r.IntList("eos_token_id"));
  if (c.model_type == "mineru2_qwen") {
    MINERU_ASSIGN_OR_RETURN(MultimodalConfig m, ParseMultimodal(r, config_name));
    if (m.image_token_index >= c.text.vocab_size) {
      return r.Error("image_token_index",
                     "is outside the vocabulary (" + std::to_string(c.text.vocab_size) + ")");
    }
    if (!vision_json) return NotFound(vision_name + ": missing (the vision config named by mm_vision_tower)");
    MINERU_ASSIGN_OR_RETURN(json vj, ParseJson(*vision_json, vision_name));
    JsonReader vr(vj, vision_name);
    MINERU_ASSIGN_OR_RETURN(m.vision, ParseVision(vr, m.vision.num_used_layers));
    if (m.vision.hidden_size != m.mm_hidden_size) {
      return r.Error("mm_hidden_size", "is " + std::to_string(m.mm_hidden_size) + " but " + vision_name +
                                           " says hidden_size " + std::to_string(m.vision.hidden_size));
    }
    c.multimodal = std::move(m);
  }
  if (generation_json) {
    const std::string gname = "generation_config.json";
    MINERU_ASSIGN_OR_RETURN(json gj, ParseJson(*generation_json, gname));
    JsonReader gr(gj, gname);
    MINERU_ASSIGN_OR_RETURN(std::vector<int64_t> eos, gr.IntList("eos_token_id"));
    if (!eos.empty()) c.generation.eos_token_ids = eos;
    MINERU_ASSIGN_OR_RETURN(c.generation.max_new_tokens,
                            gr.Int("max_new_tokens", c.generation.max_new_tokens));
    MINERU_ASSIGN_OR_RETURN(c.generation.no_repeat_ngram_size,
                            gr.Int("no_repeat_ngram_size", c.generation.no_repeat_ngram_size, 0));
  }
  for (int64_t id : c.generation.eos_token_ids) {
    if (id < 0 || id >= c.text.vocab_size) {
      return r.Error("eos_token_id", std::to_string(id) + " is outside the vocabulary");
    }
  }
  return c;
}

Result<ModelConfig> ModelConfig::Load(const std::filesystem::path& dir) {
  const auto config_path = dir / "config.json";
  MINERU_ASSIGN_OR_RETURN(std::string text, ReadTextFile(config_path));
  // The vision sub-folder is named inside config.json: peek at it first.
  std::optional<std::string> vision;
  std::filesystem::path vision_path;
  json j = json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("mm_vision_tower") &&
      j["mm_vision_tower"].is_string()) {
    const std::string sub = j["mm_vision_tower"].get<std::string>();
    if (sub.empty() || sub.find("..") != std::string::npos || sub[0] == '/') {
      return InvalidArgument(config_path.string() + ": key \"mm_vision_tower\" is not a sub-folder name");
    }
    vision_path = dir / sub / "config.json";
    auto v = ReadTextFile(vision_path);
    if (v.ok()) vision = std::move(*v);
  }
  std::optional<std::string> generation;
  if (std::filesystem::exists(dir / "generation_config.json")) {
    MINERU_ASSIGN_OR_RETURN(std::string g, ReadTextFile(dir / "generation_config.json"));
    generation = std::move(g);
  }
  auto c = Parse(text, config_path.string(), vision, vision_path.string(), generation);
  return c;
}

}  // namespace mineru::engine
