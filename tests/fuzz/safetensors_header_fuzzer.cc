// libFuzzer target: the safetensors header parser on arbitrary bytes. Any input must give either a
// validated entry list (in range, non-overlapping, sizes consistent) or an error — never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "engine/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  auto entries = mineru::engine::ParseSafetensorsHeader(bytes, size);
  if (!entries.ok()) return 0;
  uint64_t end = 0;
  for (const auto& e : *entries) {
    // The invariants the reader promises to the rest of the engine.
    if (e.offset_bytes < end || e.offset_bytes + e.size_bytes > size) std::abort();
    uint64_t n = mineru::engine::StorageDtypeSize(e.dtype);
    for (int64_t d : e.shape) n *= static_cast<uint64_t>(d);
    if (n != e.size_bytes) std::abort();
    end = e.offset_bytes + e.size_bytes;
  }
  return 0;
}
