// A MinerU-shaped model folder small enough for tests: the golden tiny random checkpoint (vocabulary
// of 300) beside a tokenizer.json written here to fit it — the 256 byte-level symbols (no merges) and
// MinerU's special tokens, with <|im_end|> at the checkpoint's EOS id and <image> at its image token id.
// The model's output is random-weight garbage; what matters is that every path yields the same tokens.
#pragma once

#include <filesystem>
#include <string>

namespace mineru::testing {

// Links config.json, model.safetensors and the vision sub-folder of `golden_model_dir` into `out_dir`
// (created) and writes tokenizer.json there. Returns "" or an error message.
std::string MakeTinyVlmModel(const std::filesystem::path& golden_model_dir,
                             const std::filesystem::path& out_dir);

}  // namespace mineru::testing
