#include "tests/integration/tiny_vlm_model.h"

#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

namespace mineru::testing {
namespace {

// The byte-level BPE alphabet: printable bytes stand for themselves, the others for code points from
// U+0100 up, in byte order.
std::string ByteSymbol(int byte, int* next_shifted) {
  const bool printable = (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || byte >= 0xae;
  const int cp = printable ? byte : 0x100 + (*next_shifted)++;
  std::string utf8;
  if (cp < 0x80) {
    utf8 += static_cast<char>(cp);
  } else {
    utf8 += static_cast<char>(0xc0 | (cp >> 6));
    utf8 += static_cast<char>(0x80 | (cp & 0x3f));
  }
  return utf8;
}

}  // namespace

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

  nlohmann::json vocab = nlohmann::json::object();
  int shifted = 0;
  for (int b = 0; b < 256; ++b) vocab[ByteSymbol(b, &shifted)] = b;
  const int eos = config.value("eos_token_id", -1);
  const int image = config.value("image_token_index", -1);
  const int vocab_size = config.value("vocab_size", 0);
  if (eos < 256 || image < 256 || eos >= vocab_size || image >= vocab_size) {
    return "the golden config's eos/image ids do not leave room for the byte alphabet";
  }
  nlohmann::json added = nlohmann::json::array();
  auto add = [&](int id, const std::string& content) {
    added.push_back({{"id", id},
                     {"content", content},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  };
  int id = 256;
  for (const char* marker : {"<|endoftext|>", "<|im_start|>", "<|box_start|>", "<|box_end|>", "<|ref_start|>",
                             "<|ref_end|>", "<|md_start|>", "<|md_end|>", "<|txt_contd|>"}) {
    add(id++, marker);
  }
  add(eos, "<|im_end|>");
  add(image, "<image>");
  nlohmann::json tokenizer = {
      {"version", "1.0"},
      {"added_tokens", added},
      {"normalizer", {{"type", "NFC"}}},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}},
  };
  std::ofstream out(out_dir / "tokenizer.json");
  out << tokenizer.dump(1);
  return out ? "" : "cannot write tokenizer.json";
}

}  // namespace mineru::testing
