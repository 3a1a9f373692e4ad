// The MinerU 2.0 prompt: the chat template around one `<image>` placeholder, encoded so that the
// placeholder becomes exactly one image token (which the model later replaces by the image
// features).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "engine/tokenizer.h"

namespace mineru::engine {

inline constexpr std::string_view kImagePlaceholder = "<image>";
inline constexpr std::string_view kDocumentParsingInstruction = "Document Parsing:";

// MinerU 2.0's prompt text for `instruction` (system turn, user turn with the image, then the
// assistant turn opened; no newline after <|im_end|>).
std::string MineruPromptText(std::string_view instruction = kDocumentParsingInstruction);

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
