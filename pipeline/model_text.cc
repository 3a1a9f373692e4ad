#include "pipeline/model_text.h"

#include <climits>
#include <vector>

namespace mineru::pipeline {

Result<std::string> DecodeModelText(const engine::Tokenizer& tokenizer, std::span<const int64_t> ids,
                                    int64_t* dropped) {
  *dropped = 0;
  std::vector<int32_t> known;
  known.reserve(ids.size());
  for (int64_t id : ids) {
    if (id >= 0 && id <= INT32_MAX && tokenizer.TokenPiece(static_cast<int32_t>(id)).has_value()) {
      known.push_back(static_cast<int32_t>(id));
    } else {
      ++*dropped;
    }
  }
  return tokenizer.Decode(known);
}

}  // namespace mineru::pipeline
