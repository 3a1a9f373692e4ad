// Test helpers for the engine input tests: PNG decoding (libpng, test-only), reading float32
// tensors from safetensors files, JSON files and JSON lines.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "engine/image_u8.h"

namespace mineru::engine::testing {

// Decodes a PNG file to 8-bit RGB.
Result<ImageU8> ReadPngRgb(const std::filesystem::path& path);

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
