// The Split pre-tokenizer of tokenizer.json (behaviour "Isolated"): a regular expression cuts a
// text into pieces; the matches and the text between them are the pieces, in order.
//
// The reference implementations disagree on a few regex details; this one follows the JavaScript
// semantics of transformers.js (the reference our goldens come from), which PCRE2 is made to honour
// by rewriting the pattern before compiling it:
//   * \s and \S mean ECMAScript white space (Unicode Zs, TAB, VT, FF, LF, CR, U+2028, U+2029,
//     U+FEFF), not PCRE2's or Rust's set (which add U+0085, drop U+FEFF);
//   * \d and \w are ASCII only (no PCRE2_UCP);
//   * a case-insensitive group (?i:...) folds ASCII letters only (PCRE2 would also let "s" match
//     U+017F and "k" match U+212A).
// \p{...} classes use PCRE2's Unicode tables. The pattern is JIT-compiled when the platform allows.
//
// Thread safety: Split may be called concurrently (per-thread match data).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace mineru::engine {

// The rewrite described above; errors for constructs it cannot rewrite faithfully.
Result<std::string> TranslateSplitPattern(std::string_view pattern);

// GPT-2's pre-tokenizer pattern: the regex a ByteLevel pre-tokenizer with use_regex = true applies.
inline constexpr std::string_view kGpt2SplitPattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

class SplitPreTokenizer {
 public:
  // `pattern` as written in tokenizer.json (pre_tokenizer ... Split.pattern.Regex).
  static Result<std::unique_ptr<SplitPreTokenizer>> Create(std::string_view pattern);
  ~SplitPreTokenizer();
  SplitPreTokenizer(const SplitPreTokenizer&) = delete;
  SplitPreTokenizer& operator=(const SplitPreTokenizer&) = delete;

  // Calls `fn(piece)` for each piece of `text` (valid UTF-8) in order; the pieces concatenate to
  // `text`. Fails only when the regex engine does (e.g. its backtracking limit).
  template <typename Fn>
  Status Split(std::string_view text, Fn&& fn) const {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t start = 0, end = 0;
      MINERU_ASSIGN_OR_RETURN(bool found, NextMatch(text, pos, &start, &end));
      if (!found) break;
      if (start > pos) fn(text.substr(pos, start - pos));
      fn(text.substr(start, end - start));
      pos = end;
    }
    if (pos < text.size()) fn(text.substr(pos));
    return Status::Ok();
  }

  // The same, collected.
  Result<std::vector<std::string_view>> SplitToVector(std::string_view text) const;

  bool jit_compiled() const { return jit_; }

 private:
  SplitPreTokenizer() = default;
  // The first match at or after `pos` (never empty: an empty match is skipped).
  Result<bool> NextMatch(std::string_view text, size_t pos, size_t* start, size_t* end) const;

  void* code_ = nullptr;  // pcre2_code_8
  bool jit_ = false;
};

}  // namespace mineru::engine
