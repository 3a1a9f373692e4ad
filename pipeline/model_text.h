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

}  // namespace mineru::pipeline
