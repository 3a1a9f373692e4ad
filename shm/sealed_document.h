// SealedDocument: the daemon side of a document hand-over. Takes the fd that came with a
// SubmitRequest, proves it is a memfd sealed against shrink, grow and write whose size is exactly the
// declared size, and maps it read-only. Anything else is refused and the fd closed: a pipe, socket,
// directory, device (/dev/zero), regular file, an unsealed or partly sealed memfd (it could be
// shrunk under the mapping: SIGBUS), a size mismatch, 0 bytes or more than the caller's cap.
// Callable from any thread.
#pragma once

#include <cstdint>
#include <span>

#include "common/mapped_region.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace mineru::shm {

class SealedDocument {
 public:
  // Errors: kInvalidArgument (not a memfd, not sealed, size mismatch), kResourceExhausted
  // (declared size over `max_bytes`), errno errors from fstat/fcntl/mmap. The fd is consumed either way.
  static Result<SealedDocument> Adopt(UniqueFd fd, uint64_t declared_bytes, uint64_t max_bytes);

  SealedDocument(SealedDocument&&) noexcept = default;
  SealedDocument& operator=(SealedDocument&&) noexcept = default;

  std::span<const uint8_t> bytes() const { return mapping_.bytes(); }
  uint64_t size() const { return mapping_.size(); }
  // The sealed memfd itself, to hand on (to a document worker); the mapping stays valid without it.
  UniqueFd TakeFd() { return std::move(fd_); }

 private:
  SealedDocument(UniqueFd fd, MappedRegion mapping) : fd_(std::move(fd)), mapping_(std::move(mapping)) {}
  UniqueFd fd_;  // kept until taken or destroyed
  MappedRegion mapping_;
};

// The seal set SealedDocument::Adopt requires.
int RequiredDocumentSeals();

}  // namespace mineru::shm
