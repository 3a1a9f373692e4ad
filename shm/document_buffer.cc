#include "shm/document_buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/syscall.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

namespace mineru::shm {

Result<UniqueFd> CreateMemfd(const char* debug_name) {
  // MFD_NOEXEC_SEAL (Linux 6.3) keeps the kernel from warning about executable memfds; older kernels
  // refuse the flag with EINVAL, then plain sealing memfds are made.
  int fd = memfd_create(debug_name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
  if (fd < 0 && errno == EINVAL) fd = memfd_create(debug_name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return ErrnoStatus(errno, "memfd_create");
  return UniqueFd(fd);
}

Result<DocumentBuffer> DocumentBuffer::Create(uint64_t size_bytes, bool populate) {
  if (size_bytes == 0) return InvalidArgument("a document buffer needs at least one byte");
  MINERU_ASSIGN_OR_RETURN(UniqueFd fd, CreateMemfd("minerud-document"));
  if (RetryEintr([&] { return ftruncate(fd.get(), static_cast<off_t>(size_bytes)); }) != 0) {
    return ErrnoStatus(errno, "ftruncate(document memfd)");
  }
  MapOptions options;
  options.size_bytes = size_bytes;
  options.writable = true;
  options.populate = populate;
  MINERU_ASSIGN_OR_RETURN(MappedRegion mapping, MappedRegion::Map(fd.get(), options));
  return DocumentBuffer(std::move(fd), std::move(mapping), size_bytes);
}

Result<DocumentBuffer> DocumentBuffer::CopyOf(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return InvalidArgument("a document buffer needs at least one byte");
  MINERU_ASSIGN_OR_RETURN(UniqueFd fd, CreateMemfd("minerud-document"));
  // write(2) straight into the memfd: no page tables to build and tear down, about twice as fast as
  // filling a mapping.
  uint64_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = RetryEintr(
        [&] { return pwrite(fd.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done)); });
    if (n < 0) return ErrnoStatus(errno, "write(document memfd)");
    done += static_cast<uint64_t>(n);
  }
  return DocumentBuffer(std::move(fd), MappedRegion(), bytes.size());
}

Result<UniqueFd> DocumentBuffer::Seal() {
  if (!fd_) return FailedPrecondition("document buffer already sealed");
  // F_SEAL_WRITE is refused (EBUSY) while a writable shared mapping exists: drop ours first.
  mapping_.Reset();
  const int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
  if (fcntl(fd_.get(), F_ADD_SEALS, seals) != 0) return ErrnoStatus(errno, "fcntl(F_ADD_SEALS)");
  return std::move(fd_);
}

}  // namespace mineru::shm
