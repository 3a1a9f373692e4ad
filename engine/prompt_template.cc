#include "engine/prompt_template.h"

namespace mineru::engine {

std::string MineruPrompt(std::string_view instruction) {
  std::string p;
  p += "<|im_start|>system\n";
  p += kMineruSystemPrompt;
  p += "<|im_end|><|im_start|>user\n";
  p += kImagePlaceholder;
  p += "\n";
  p += instruction;
  p += "<|im_end|><|im_start|>assistant\n";
  return p;
}

}  // namespace mineru::engine
