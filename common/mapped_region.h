// MappedRegion: one mmap'd range, unmapped exactly once. Move-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/result.h"

namespace mineru {

struct MapOptions {
  uint64_t offset_bytes = 0;  // must be a multiple of the page size
  uint64_t size_bytes = 0;    // 0 = from offset to the end of the file
  bool writable = false;      // PROT_WRITE, MAP_SHARED
  bool populate = false;      // MAP_POPULATE
};

class MappedRegion {
 public:
  MappedRegion() = default;
  ~MappedRegion() { Reset(); }
  MappedRegion(MappedRegion&& other) noexcept;
  MappedRegion& operator=(MappedRegion&& other) noexcept;
  MappedRegion(const MappedRegion&) = delete;
  MappedRegion& operator=(const MappedRegion&) = delete;

  // Maps `fd` (which the caller keeps owning; the mapping stays valid after it is closed).
  static Result<MappedRegion> Map(int fd, const MapOptions& options);
  // Opens `path` read-only and maps all of it.
  static Result<MappedRegion> MapFile(const char* path);
  // Anonymous private memory, zero-filled.
  static Result<MappedRegion> Anonymous(uint64_t size_bytes);

  uint8_t* data() { return static_cast<uint8_t*>(addr_); }
  const uint8_t* data() const { return static_cast<const uint8_t*>(addr_); }
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const uint8_t> bytes() const { return {data(), static_cast<size_t>(size_)}; }

  // madvise hints; failures are reported, never fatal.
  Status AdviseSequential(uint64_t offset_bytes, uint64_t length_bytes) const;
  Status AdviseWillNeed(uint64_t offset_bytes, uint64_t length_bytes) const;
  Status AdviseDontNeed(uint64_t offset_bytes, uint64_t length_bytes) const;

  void Reset();

 private:
  MappedRegion(void* addr, uint64_t size) : addr_(addr), size_(size) {}
  Status Advise(uint64_t offset_bytes, uint64_t length_bytes, int advice) const;

  void* addr_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace mineru
