// The model's generated ids as text, the way NAME_model_output.txt holds them.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/result.h"
#include "engine/tokenizer.h"

namespace mineru::pipeline {

// The model's text for generated ids, special tokens kept. Ids the tokenizer does not know (a
// checkpoint's vocabulary is padded past the tokenizer's) are left out and counted in `*dropped`.
Result<std::string> DecodeModelText(const engine::Tokenizer& tokenizer, std::span<const int64_t> ids,
                                    int64_t* dropped);

// The same text as the ids are written, for streamed answers: Push each generated id and get the text
// it completes. A character whose bytes are cut between tokens waits for the rest (bytes that cannot
// become one do not), so the pieces of Push and then Finish, joined, are exactly DecodeModelText of
// the ids. Not thread-safe.
class ModelTextStream {
 public:
  explicit ModelTextStream(const engine::Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  std::string Push(int64_t id);
  // What is still held (the lossy decoding of an unfinished character, if the ids ended in one).
  std::string Finish();
  int64_t dropped() const { return dropped_; }

 private:
  const engine::Tokenizer& tokenizer_;
  std::string held_bytes_;  // the start of a character the next token may finish
  int64_t dropped_ = 0;
};

}  // namespace mineru::pipeline
