// A checkpoint of random weights for a model config, generated in memory (nothing downloaded, nothing
// written to disk): a safetensors image in anonymous memory, opened like a model folder's file, so the
// weights go through the residency manager exactly as real ones do (`engine_bench --dummy-weights`).
// Values: normal(0, 0.02), norm weights 1 — enough for timing, meaningless as a model.
#pragma once

#include <memory>

#include "common/mapped_region.h"
#include "common/result.h"
#include "engine/checkpoint.h"
#include "engine/model_config.h"

namespace mineru::engine {

// The safetensors file itself (header and data), in anonymous memory.
Result<MappedRegion> GenerateDummySafetensors(const ModelConfig& config, StorageDtype dtype, uint64_t seed);

Result<std::shared_ptr<const Checkpoint>> MakeDummyCheckpoint(const ModelConfig& config, StorageDtype dtype,
                                                              uint64_t seed);

}  // namespace mineru::engine
