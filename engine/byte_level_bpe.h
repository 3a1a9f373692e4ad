// Byte-level BPE as used by GPT-2, Qwen2 and Qwen3: tokens are byte strings written with a
// reversible byte -> printable character mapping; a word (one pre-token) starts as one symbol per
// byte and adjacent pairs are merged in order of merge rank (lowest first, leftmost on ties) until
// no ranked pair is left. Results are cached per word.
//
// Thread safety: all const methods may be called concurrently (the cache has its own lock).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.h"

namespace mineru::engine {

// The printable character that stands for byte `b` in byte-level vocabularies (UTF-8 of it).
std::string ByteLevelChar(uint8_t b);
// Byte-level token text -> raw bytes; false when a character is not one of the 256 byte characters.
bool ByteLevelToBytes(std::string_view token_text, std::string* bytes);
// Raw bytes -> byte-level token text.
std::string BytesToByteLevel(std::string_view bytes);

// Token ids are at most this (bounds the tables a hostile tokenizer.json can make us allocate).
inline constexpr int64_t kMaxTokenId = (int64_t{1} << 22) - 1;

class ByteLevelBpe {
 public:
  struct Options {
    // Look the whole word up in the vocabulary before merging (tokenizer.json `ignore_merges`).
    bool ignore_merges = false;
    // Words cached at most; the cache is emptied when full. 0 disables caching.
    size_t cache_capacity_words = 1 << 17;
    // Longer words are not cached.
    size_t cache_max_word_bytes = 64;
  };

  // `vocab`: (byte-level token text, id) pairs; `merges`: byte-level pairs in rank order. Errors
  // name the tokenizer.json key (model.vocab, model.merges[i]).
  static Result<std::unique_ptr<ByteLevelBpe>> Create(
      const std::vector<std::pair<std::string, int64_t>>& vocab,
      const std::vector<std::pair<std::string, std::string>>& merges, const Options& options);

  ByteLevelBpe(const ByteLevelBpe&) = delete;
  ByteLevelBpe& operator=(const ByteLevelBpe&) = delete;

  // Appends the ids of one word (raw bytes, typically one pre-token) to `out`.
  void EncodeWord(std::string_view word, std::vector<int32_t>* out) const;
  // The same without touching the cache (benchmarks, tests).
  void EncodeWordUncached(std::string_view word, std::vector<int32_t>* out) const;

  // Empties the per-word cache (benchmarks measure the uncached path with it).
  void ClearCache() const;

  // Raw bytes of token `id`, or nullptr when `id` is not in the vocabulary. Tokens whose text is not
  // byte-level (possible in hand-made vocabularies) are returned as their UTF-8 text.
  const std::string* TokenBytes(int32_t id) const;
  // Id of the token whose raw bytes are `bytes`.
  std::optional<int32_t> FindBytes(std::string_view bytes) const;

  // One more than the largest id in the vocabulary.
  int32_t id_limit() const { return static_cast<int32_t>(id_to_bytes_.size()); }
  size_t vocab_size() const { return bytes_to_id_.size(); }
  size_t num_merges() const { return num_merges_; }

 private:
  // Open-addressing table of merges keyed by (left id, right id); one probe sequence per lookup.
  struct MergeSlot {
    uint64_t key = kEmptyKey;
    int32_t rank = 0;
    int32_t merged_id = 0;
  };
  static constexpr uint64_t kEmptyKey = ~uint64_t{0};
  // The slot holding `key`, or the empty slot where it would go.
  size_t FindSlot(uint64_t key) const;

  explicit ByteLevelBpe(const Options& options) : options_(options) {}
  static uint64_t PairKey(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }

  Options options_;
  std::vector<std::string> id_to_bytes_;
  std::vector<bool> id_present_;
  std::unordered_map<std::string, int32_t> bytes_to_id_;
  int32_t byte_ids_[256] = {};
  std::vector<MergeSlot> merge_slots_;  // size is a power of two, at most half full
  int merge_shift_ = 64;
  size_t num_merges_ = 0;

  struct WordHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  mutable std::mutex cache_mu_;
  // Guarded by cache_mu_.
  mutable std::unordered_map<std::string, std::vector<int32_t>, WordHash, std::equal_to<>> cache_;
};

}  // namespace mineru::engine
