#include "common/mapped_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "common/syscall.h"
#include "common/unique_fd.h"

namespace mineru {

MappedRegion::MappedRegion(MappedRegion&& other) noexcept
    : addr_(std::exchange(other.addr_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedRegion& MappedRegion::operator=(MappedRegion&& other) noexcept {
  if (this != &other) {
    Reset();
    addr_ = std::exchange(other.addr_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedRegion::Reset() {
  if (addr_ != nullptr && size_ > 0) ::munmap(addr_, size_);
  addr_ = nullptr;
  size_ = 0;
}

Result<MappedRegion> MappedRegion::Map(int fd, const MapOptions& options) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  if (options.offset_bytes % page != 0) {
    return InvalidArgument("mmap offset " + std::to_string(options.offset_bytes) +
                           " is not a multiple of the page size");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "fstat before mmap");
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (options.offset_bytes > file_size) {
    return OutOfRange("mmap offset " + std::to_string(options.offset_bytes) + " is past the end (" +
                      std::to_string(file_size) + " bytes)");
  }
  uint64_t size = options.size_bytes;
  if (size == 0) size = file_size - options.offset_bytes;
  if (size > file_size - options.offset_bytes) {
    return OutOfRange("mmap of " + std::to_string(size) + " bytes at " +
                      std::to_string(options.offset_bytes) + " runs past the end (" +
                      std::to_string(file_size) + " bytes)");
  }
  if (size == 0) return MappedRegion();
  int prot = PROT_READ | (options.writable ? PROT_WRITE : 0);
  int flags = MAP_SHARED | (options.populate ? MAP_POPULATE : 0);
  void* addr = ::mmap(nullptr, size, prot, flags, fd, static_cast<off_t>(options.offset_bytes));
  if (addr == MAP_FAILED) return ErrnoStatus(errno, "mmap");
  return MappedRegion(addr, size);
}

Result<MappedRegion> MappedRegion::MapFile(const char* path) {
  UniqueFd fd(RetryEintr([&] { return ::open(path, O_RDONLY | O_CLOEXEC); }));
  if (!fd) return ErrnoStatus(errno, std::string("open ") + path);
  auto region = Map(fd.get(), MapOptions{});
  if (!region.ok()) return region.status().WithContext(path);
  return region;
}

Result<MappedRegion> MappedRegion::Anonymous(uint64_t size_bytes) {
  if (size_bytes == 0) return MappedRegion();
  void* addr = ::mmap(nullptr, size_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (addr == MAP_FAILED) return ErrnoStatus(errno, "anonymous mmap");
  return MappedRegion(addr, size_bytes);
}

Status MappedRegion::Advise(uint64_t offset_bytes, uint64_t length_bytes, int advice) const {
  if (offset_bytes > size_ || length_bytes > size_ - offset_bytes) {
    return OutOfRange("madvise range past the mapping");
  }
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t start = offset_bytes / page * page;
  uint64_t end = offset_bytes + length_bytes;
  if (end == start) return Status::Ok();
  if (::madvise(static_cast<uint8_t*>(addr_) + start, end - start, advice) != 0) {
    return ErrnoStatus(errno, "madvise");
  }
  return Status::Ok();
}

Status MappedRegion::AdviseSequential(uint64_t offset_bytes, uint64_t length_bytes) const {
  return Advise(offset_bytes, length_bytes, MADV_SEQUENTIAL);
}
Status MappedRegion::AdviseWillNeed(uint64_t offset_bytes, uint64_t length_bytes) const {
  return Advise(offset_bytes, length_bytes, MADV_WILLNEED);
}
Status MappedRegion::AdviseDontNeed(uint64_t offset_bytes, uint64_t length_bytes) const {
  return Advise(offset_bytes, length_bytes, MADV_DONTNEED);
}

}  // namespace mineru
