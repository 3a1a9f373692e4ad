// The MinerU 2.0 chat prompt for one page: a system turn, a user turn holding the image and the
// instruction, and the opening of the assistant turn. No BOS, and no newline after <|im_end|>.
#pragma once

#include <string>
#include <string_view>

namespace mineru::engine {

inline constexpr std::string_view kMineruSystemPrompt =
    "A conversation between a user and an LLM-based AI assistant. The assistant gives helpful and honest "
    "answers.";
inline constexpr std::string_view kDocumentParsingInstruction = "Document Parsing:";
inline constexpr std::string_view kImagePlaceholder = "<image>";

// "<|im_start|>system\n{system}<|im_end|><|im_start|>user\n<image>\n{instruction}<|im_end|><|im_start|>assistant\n"
std::string MineruPrompt(std::string_view instruction = kDocumentParsingInstruction);

}  // namespace mineru::engine
