// Test helpers for the engine input tests: reading float32 tensors from safetensors files, JSON
// files and JSON lines.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace mineru::engine::testing {

struct F32Tensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};
// Tensor `name` (dtype F32) of a safetensors file.
Result<F32Tensor> ReadSafetensorsF32(const std::filesystem::path& path, const std::string& name);

Result<nlohmann::json> ReadJsonFile(const std::filesystem::path& path);
Result<std::vector<nlohmann::json>> ReadJsonLines(const std::filesystem::path& path);
Result<std::string> ReadTextFile(const std::filesystem::path& path);

}  // namespace mineru::engine::testing
