#include "engine/dummy_tokenizer.h"

#include <array>

#include <nlohmann/json.hpp>

namespace mineru::engine {
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

constexpr std::array<const char*, 9> kMarkers = {"<|endoftext|>", "<|im_start|>",  "<|box_start|>",
                                                 "<|box_end|>",   "<|ref_start|>", "<|ref_end|>",
                                                 "<|md_start|>",  "<|md_end|>",    "<|txt_contd|>"};

nlohmann::json AddedToken(int64_t id, const std::string& content) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", true}};
}

}  // namespace

Result<std::string> DummyTokenizerJson(int64_t vocab_size, int64_t eos_token_id, int64_t image_token_id) {
  const int64_t first_free = 256 + static_cast<int64_t>(kMarkers.size());
  for (int64_t id : {eos_token_id, image_token_id}) {
    if (id < first_free || id >= vocab_size) {
      return InvalidArgument("token id " + std::to_string(id) + " leaves no room for the byte alphabet and " +
                             "MinerU's markers below it, or is outside the vocabulary of " +
                             std::to_string(vocab_size));
    }
  }
  nlohmann::json vocab = nlohmann::json::object();
  int shifted = 0;
  for (int b = 0; b < 256; ++b) vocab[ByteSymbol(b, &shifted)] = b;
  nlohmann::json added = nlohmann::json::array();
  int64_t id = 256;
  for (const char* marker : kMarkers) added.push_back(AddedToken(id++, marker));
  added.push_back(AddedToken(eos_token_id, "<|im_end|>"));
  added.push_back(AddedToken(image_token_id, "<image>"));
  for (; id < vocab_size; ++id) {
    if (id != eos_token_id && id != image_token_id) vocab["g" + std::to_string(id)] = id;
  }
  const nlohmann::json tokenizer = {
      {"version", "1.0"},
      {"added_tokens", added},
      {"normalizer", {{"type", "NFC"}}},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}},
  };
  return tokenizer.dump(1);
}

}  // namespace mineru::engine
