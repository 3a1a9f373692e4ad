#include "pipeline/model_text.h"

#include <climits>
#include <string_view>
#include <vector>

#include "engine/tokenizer_utf8.h"

namespace mineru::pipeline {

namespace {

bool Known(const engine::Tokenizer& tokenizer, int64_t id) {
  return id >= 0 && id <= INT32_MAX && tokenizer.TokenPiece(static_cast<int32_t>(id)).has_value();
}

}  // namespace

Result<std::string> DecodeModelText(const engine::Tokenizer& tokenizer, std::span<const int64_t> ids,
                                    int64_t* dropped) {
  *dropped = 0;
  std::vector<int32_t> known;
  known.reserve(ids.size());
  for (int64_t id : ids) {
    if (Known(tokenizer, id)) {
      known.push_back(static_cast<int32_t>(id));
    } else {
      ++*dropped;
    }
  }
  return tokenizer.Decode(known);
}

// Tokenizer::Decode joins a run of vocabulary tokens' bytes and decodes it (engine::DecodeUtf8Lossy),
// an added token is its content; the bytes decode apart exactly where no unfinished tail is
// (engine::UnfinishedUtf8Tail), so all but that tail can go at once.
std::string ModelTextStream::Push(int64_t id) {
  if (!Known(tokenizer_, id)) {
    ++dropped_;
    return {};
  }
  const int32_t token = static_cast<int32_t>(id);
  if (const std::string* bytes = tokenizer_.TokenBytes(token)) {
    held_bytes_ += *bytes;
    const size_t keep = engine::UnfinishedUtf8Tail(held_bytes_);
    std::string text =
        engine::DecodeUtf8Lossy(std::string_view(held_bytes_).substr(0, held_bytes_.size() - keep));
    held_bytes_.erase(0, held_bytes_.size() - keep);
    return text;
  }
  std::string text = engine::DecodeUtf8Lossy(held_bytes_) + tokenizer_.TokenPiece(token).value_or("");
  held_bytes_.clear();
  return text;
}

std::string ModelTextStream::Finish() {
  std::string text = engine::DecodeUtf8Lossy(held_bytes_);
  held_bytes_.clear();
  return text;
}

}  // namespace mineru::pipeline
