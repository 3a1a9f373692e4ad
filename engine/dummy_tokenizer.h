// A tokenizer.json for a model of random weights: every id of the vocabulary decodes, so whatever such a
// model writes can be read back as text. The 256 byte-level symbols (no merges) take ids 0–255, MinerU's
// markers follow from 256, <|im_end|> sits at the model's EOS id and <image> at its image token id, and
// every other id is a filler token spelled "g<id>". Used by the golden tiny model of the tests and by
// generated full-size model folders (engine/dummy_model_folder.h).
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"

namespace mineru::engine {

// kInvalidArgument when eos or image is below 256 + the markers or outside the vocabulary.
Result<std::string> DummyTokenizerJson(int64_t vocab_size, int64_t eos_token_id, int64_t image_token_id);

}  // namespace mineru::engine
