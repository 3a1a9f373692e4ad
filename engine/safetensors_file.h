// SafetensorsFile: one .safetensors file, mmap'd read-only, with its header parsed and validated.
//
// Format: u64 little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets}}
// (plus an optional "__metadata__" object of strings), then the raw little-endian tensor data.
// Validation: the header fits the file; every dtype is known; shape dimensions are non-negative and
// their product times the element size equals the byte range; ranges lie inside the data section
// and do not overlap. Tensors are exposed as views into the mapping (tier kDisk): no bytes are read
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

namespace mineru::engine {

enum class StorageDtype { kF32, kF16, kBF16, kI64, kI32, kU8 };

// "F32", "BF16", ... as written in safetensors headers.
std::string_view StorageDtypeName(StorageDtype dtype);
uint64_t StorageDtypeSize(StorageDtype dtype);
at::ScalarType StorageDtypeToScalarType(StorageDtype dtype);

struct TensorEntry {
  std::string name;
  StorageDtype dtype = StorageDtype::kF32;
  std::vector<int64_t> shape;
  uint64_t offset_bytes = 0;  // from the start of the file
  uint64_t size_bytes = 0;
};

// Parses and validates a header. `file` is the whole file (or at least its first 8 + N bytes when
// `file_size_bytes` gives the real size). Entries are sorted by offset. Used by the reader and by the
// fuzzer.
Result<std::vector<TensorEntry>> ParseSafetensorsHeader(std::span<const uint8_t> file,
                                                        uint64_t file_size_bytes);

class SafetensorsFile {
 public:
  SafetensorsFile() = default;
  SafetensorsFile(SafetensorsFile&&) = default;
  SafetensorsFile& operator=(SafetensorsFile&&) = default;

  static Result<SafetensorsFile> Open(const std::string& path);

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
Status WriteSafetensors(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors);

}  // namespace mineru::engine
