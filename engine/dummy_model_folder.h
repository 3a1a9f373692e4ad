// A model folder of random weights with the real architecture: config.json, generation_config.json and
// the vision sub-folder copied from a config folder (examples/mineru2-0.9b-config for MinerU 2.0's full
// size), model.safetensors generated (engine/dummy_checkpoint.h) and a tokenizer.json in which every id
// decodes (engine/dummy_tokenizer.h). minerud, mineru-infer and the benchmarks open it like a
// downloaded model, so the full-size path can be measured end to end without downloading anything.
#pragma once

#include <cstdint>
#include <filesystem>

#include "common/status.h"
#include "engine/safetensors_header.h"

namespace mineru::engine {

// Writes the folder `out_dir` (created; files in it are replaced).
Status WriteDummyModelFolder(const std::filesystem::path& config_dir, const std::filesystem::path& out_dir,
                             StorageDtype dtype, uint64_t seed);

}  // namespace mineru::engine
