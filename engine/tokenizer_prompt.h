// Encoding a MinerU 2.0 prompt (the chat template text, see prompt_template.h) so that its one
// `<image>` placeholder becomes exactly one image token, which the model later replaces by the
// image features.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "engine/tokenizer.h"

namespace mineru::engine {

// The id that stands for the image: `<image>`'s id when the tokenizer has it as an added token,
// else `config_image_token_index` (config.json `image_token_index`). Both present and different, or
// neither present, is an error.
Result<int32_t> ResolveImageTokenId(const Tokenizer& tokenizer,
                                    std::optional<int64_t> config_image_token_index);

// Encodes `prompt`, which must contain `<image>` exactly once: the text before and after it are
// encoded separately and `image_token_id` is put between them.
Result<std::vector<int32_t>> EncodeImagePrompt(const Tokenizer& tokenizer, std::string_view prompt,
                                               int32_t image_token_id);

// Where the image token sits in an encoded prompt (the first occurrence), or nullopt.
std::optional<size_t> FindImageToken(const std::vector<int32_t>& ids, int32_t image_token_id);

}  // namespace mineru::engine
