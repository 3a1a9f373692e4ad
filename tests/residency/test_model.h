// A synthetic checkpoint for residency tests: a real file of random bytes, mmap'd read-only, cut into
// units of tensors at known offsets (as a safetensors data section would be).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include "common/mapped_region.h"

#include "residency/unit.h"

namespace mineru::residency::testing {

struct TestModel {
  std::filesystem::path path;
  MappedRegion region;
  std::vector<UnitSpec> units;
  ~TestModel();
};

// `unit_bytes[i]` is the approximate size of unit i (split over 1-3 F32/BF16 tensors). Kinds: unit 0 is
// the embedding, the last is the norm, the rest decoder layers 0..n-3.
std::unique_ptr<TestModel> MakeTestModel(const std::vector<uint64_t>& unit_bytes, uint32_t seed);

// True when every tensor of a lease (given as tensors in spec order) holds the file's bytes.
bool SameAsFile(const TestModel& model, const UnitSpec& unit, const std::vector<at::Tensor>& tensors);

}  // namespace mineru::residency::testing
