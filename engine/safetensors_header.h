// The safetensors header: u64 little-endian length N, N bytes of JSON {name: {dtype, shape, data_offsets}}
// (plus an optional "__metadata__" object), then the raw little-endian tensor data. Parsing and
// validation without libtorch (the fuzzer builds this file alone): the header fits the file; every dtype
// is known; dimensions are non-negative and their product times the element size equals the byte range;
// ranges lie inside the data section and do not overlap.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace mineru::engine {

enum class StorageDtype { kF32, kF16, kBF16, kI64, kI32, kU8 };

// "F32", "BF16", ... as written in safetensors headers.
std::string_view StorageDtypeName(StorageDtype dtype);
uint64_t StorageDtypeSize(StorageDtype dtype);

struct TensorEntry {
  std::string name;
  StorageDtype dtype = StorageDtype::kF32;
  std::vector<int64_t> shape;
  uint64_t offset_bytes = 0;  // from the start of the file
  uint64_t size_bytes = 0;
};

// The bytes before the data of a file holding `entries` one after another in this order (their
// size_bytes count, their offset_bytes do not): the u64 length, then the JSON padded with spaces so
// that the data starts 8-byte aligned.
std::string SerializeSafetensorsHeader(const std::vector<TensorEntry>& entries);

// Parses and validates a header. `file` is the whole file (or at least its first 8 + N bytes when
// `file_size_bytes` gives the real size). Entries are sorted by offset.
Result<std::vector<TensorEntry>> ParseSafetensorsHeader(std::span<const uint8_t> file,
                                                        uint64_t file_size_bytes);

}  // namespace mineru::engine
