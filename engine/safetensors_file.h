// SafetensorsFile: one .safetensors file, mmap'd read-only, with its header parsed and validated
// (safetensors_header.h). Tensors are exposed as views into the mapping (tier kDisk): no bytes are read
// until a tensor is used.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/mapped_region.h"
#include "common/result.h"
#include "engine/safetensors_header.h"

namespace mineru::engine {

at::ScalarType StorageDtypeToScalarType(StorageDtype dtype);

class SafetensorsFile {
 public:
  SafetensorsFile() = default;
  SafetensorsFile(SafetensorsFile&&) = default;
  SafetensorsFile& operator=(SafetensorsFile&&) = default;

  static Result<SafetensorsFile> Open(const std::string& path);
  // A safetensors image already in memory (e.g. generated weights); `name` stands for its path.
  static Result<SafetensorsFile> FromRegion(const std::string& name, MappedRegion region);

  const std::string& path() const { return path_; }
  // The whole file's mapping (for registering it with the residency manager as a kDisk region).
  const MappedRegion& region() const { return region_; }
  const std::vector<TensorEntry>& entries() const { return entries_; }
  // nullptr when absent.
  const TensorEntry* Find(const std::string& name) const;

  // A read-only view of the mapped bytes with the stored dtype and shape. Never write into it.
  Result<at::Tensor> View(const TensorEntry& entry) const;
  // The stored bytes of an entry.
  std::span<const uint8_t> Bytes(const TensorEntry& entry) const;

 private:
  std::string path_;
  MappedRegion region_;
  std::vector<TensorEntry> entries_;
  std::map<std::string, size_t> by_name_;
};

// Writes `tensors` (contiguous CPU tensors of F32/F16/BF16/I64) as one safetensors file.
Status WriteSafetensors(const std::string& path,
                        const std::vector<std::pair<std::string, at::Tensor>>& tensors);

}  // namespace mineru::engine
