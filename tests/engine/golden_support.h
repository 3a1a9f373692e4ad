// Helpers for the engine's golden tests: reading the case JSON files and expected tensors from
// ../shared/golden, and comparing tensors.
#pragma once

#include <ATen/ATen.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/mineru2_model.h"

namespace mineru::engine::testing {

// The parsed JSON file at golden/<relative> (ADD_FAILURE and an empty object when unreadable).
nlohmann::json LoadGoldenJson(const std::filesystem::path& golden, const std::string& relative);
// A tensor from a golden safetensors file, converted exactly to float32 (int tensors stay int64).
at::Tensor LoadGoldenTensor(const std::filesystem::path& golden, const std::string& file,
                            const std::string& name);
// Convenience for {"file": ..., "tensor": ...} objects.
at::Tensor LoadGoldenTensor(const std::filesystem::path& golden, const nlohmann::json& ref);
std::vector<int64_t> IntList(const nlohmann::json& j);
double MaxAbsDiff(const at::Tensor& a, const at::Tensor& b);
// The VLM pixel pool slice [0:count] in float32.
at::Tensor GoldenPixels(const std::filesystem::path& golden, int64_t count);
// The 2x2 VLM case (cases/g2x2-640x480) of model folder `dir` with `options`: the spliced prompt's
// logits at the stored rows (undefined after an ADD_FAILURE) and, in *generated, 24 greedy tokens with
// the n-gram ban of 100.
at::Tensor GoldenVlmLogitsRows(const std::filesystem::path& golden, const std::string& dir,
                               const ModelOptions& options, std::vector<int64_t>* generated);

}  // namespace mineru::engine::testing
