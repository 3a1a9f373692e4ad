// Reading a Hugging Face tokenizer.json into the parts a byte-level BPE tokenizer needs. Only the
// features byte-level BPE models (GPT-2, Qwen2, Qwen3, MinerU's Qwen2 checkpoints) use are accepted;
// anything else is an error naming the key, never silently ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace mineru::engine {

struct AddedToken {
  int32_t id = 0;
  std::string content;   // matched verbatim in the raw text, before normalisation
  bool special = false;  // informative; special tokens are matched and decoded like the others
  bool lstrip = false;   // swallow white space on the left of a match
  bool rstrip = false;   // swallow white space on the right of a match
};

struct TokenizerSpec {
  std::vector<std::pair<std::string, int64_t>> vocab;       // model.vocab (byte-level text)
  std::vector<std::pair<std::string, std::string>> merges;  // model.merges in rank order
  bool ignore_merges = false;                               // model.ignore_merges
  std::vector<AddedToken> added_tokens;                     // added_tokens
  bool nfc = false;                                         // normalizer is NFC
  std::optional<std::string> split_pattern;                 // pre-tokenizer regex (raw)
};

// Parses tokenizer.json text. Errors name the key ("model.merges[7]: ...").
Result<TokenizerSpec> ParseTokenizerJson(std::string_view json_text);

}  // namespace mineru::engine
