// PageText: what the model wrote for one page, and why it stopped.
#pragma once

#include <string>

namespace mineru::pipeline {

struct PageText {
  std::string text;             // as in NAME_model_output.txt (special tokens kept)
  bool at_token_limit = false;  // it ran into max_new_tokens instead of writing an end-of-text token
};

}  // namespace mineru::pipeline
