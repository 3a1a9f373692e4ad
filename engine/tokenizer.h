// The text tokenizer of Qwen2-family checkpoints (MinerU 2.0): byte-level BPE loaded from a
// Hugging Face tokenizer.json.
//
// Encoding, in order: added tokens (special or not, from the file's `added_tokens`) are found in the
// raw text first (longest match, left to right); each stretch of text between them is normalised
// (NFC when the file says so), cut by the pre-tokenizer's split regex and each piece is encoded by
// byte-level BPE. No BOS/EOS is added. Decoding keeps special tokens as their text; bytes that do
// not form valid UTF-8 become U+FFFD.
//
// Thread safety: a Tokenizer is immutable after loading; Encode and Decode may run concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "engine/added_token_matcher.h"
#include "engine/byte_level_bpe.h"
#include "engine/pretokenizer.h"
#include "engine/tokenizer_json.h"

namespace mineru::engine {

class Tokenizer {
 public:
  // Loads `path` (a tokenizer.json). Errors name the file and the key.
  static Result<std::unique_ptr<Tokenizer>> FromFile(const std::filesystem::path& path);
  // `source_name` prefixes error messages (usually the file name).
  static Result<std::unique_ptr<Tokenizer>> FromJson(std::string_view json_text,
                                                     std::string_view source_name);
  static Result<std::unique_ptr<Tokenizer>> FromSpec(TokenizerSpec spec);

  // Token ids of `text` (UTF-8; invalid UTF-8 is an error naming the byte offset).
  Result<std::vector<int32_t>> Encode(std::string_view text) const;
  // Appends the ids of `text` to `ids` (unchanged on error).
  Status EncodeAppend(std::string_view text, std::vector<int32_t>* ids) const;

  // Text of `ids` with special tokens kept; an id that is not a token is an error.
  Result<std::string> Decode(std::span<const int32_t> ids) const;

  // The id of an added token with this content, else of the vocabulary token with these raw bytes.
  std::optional<int32_t> TokenId(std::string_view text) const;
  // The id of an added token with exactly this content.
  std::optional<int32_t> AddedTokenId(std::string_view content) const;
  // The token's text as tokenizer.json writes it: byte-level text for vocabulary tokens, the content
  // for added tokens; nullopt for an id that is not a token.
  std::optional<std::string> TokenPiece(int32_t id) const;
  // A vocabulary token's bytes as Decode joins them (null for added tokens and unknown ids).
  const std::string* TokenBytes(int32_t id) const;
  bool IsAddedToken(int32_t id) const { return added_by_id_.count(id) != 0; }
  bool IsSpecialToken(int32_t id) const;

  const std::vector<AddedToken>& added_tokens() const { return added_tokens_; }
  // One more than the largest token id (vocabulary and added tokens).
  int32_t id_limit() const { return id_limit_; }
  bool normalizes_nfc() const { return nfc_; }
  const ByteLevelBpe& bpe() const { return *bpe_; }

 private:
  Tokenizer() = default;
  // Encodes text that holds no added token.
  Status EncodePlain(std::string_view text, std::vector<int32_t>* ids) const;

  std::unique_ptr<ByteLevelBpe> bpe_;
  std::unique_ptr<SplitPreTokenizer> split_;  // null: each section is one word
  std::unique_ptr<AddedTokenMatcher> matcher_;
  std::vector<AddedToken> added_tokens_;
  std::unordered_map<int32_t, size_t> added_by_id_;           // id -> index in added_tokens_
  std::unordered_map<std::string, size_t> added_by_content_;  // content -> index in added_tokens_
  bool nfc_ = false;
  int32_t id_limit_ = 0;
};

}  // namespace mineru::engine
