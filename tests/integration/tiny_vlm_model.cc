#include "tests/integration/tiny_vlm_model.h"

#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "engine/dummy_tokenizer.h"

namespace mineru::testing {

std::string MakeTinyVlmModel(const std::filesystem::path& golden_dir, const std::filesystem::path& out_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Links name their target as given: relative to the link's folder unless absolute.
  const fs::path golden_model_dir = fs::absolute(golden_dir, ec);
  if (ec) return "cannot resolve " + golden_dir.string() + ": " + ec.message();
  fs::create_directories(out_dir, ec);
  if (ec) return "cannot create " + out_dir.string() + ": " + ec.message();
  std::ifstream config_in(golden_model_dir / "config.json");
  nlohmann::json config = nlohmann::json::parse(config_in, nullptr, false);
  if (config.is_discarded()) return "cannot read " + (golden_model_dir / "config.json").string();
  for (const char* name : {"config.json", "model.safetensors"}) {
    fs::create_symlink(golden_model_dir / name, out_dir / name, ec);
    if (ec) return std::string("cannot link ") + name + ": " + ec.message();
  }
  const std::string tower = config.value("mm_vision_tower", "");
  fs::create_directory_symlink(golden_model_dir / tower, out_dir / tower, ec);
  if (ec) return "cannot link the vision folder: " + ec.message();

  const Result<std::string> tokenizer = engine::DummyTokenizerJson(
      config.value("vocab_size", 0), config.value("eos_token_id", -1), config.value("image_token_index", -1));
  if (!tokenizer.ok()) return "the golden config: " + tokenizer.status().message();
  std::ofstream out(out_dir / "tokenizer.json");
  out << *tokenizer;
  return out ? "" : "cannot write tokenizer.json";
}

}  // namespace mineru::testing
