// DocumentBuffer: the client side of a document hand-over. An anonymous memfd the app fills in place
// (the zero-copy path: no byte is copied between the app and the daemon), then seals against shrink,
// grow and write, and passes with SCM_RIGHTS in a SubmitRequest (1 fd, document_bytes = size()).
//
//   auto buffer = DocumentBuffer::Create(n);      // writable mapping of n bytes
//   Fill(buffer->data());                          // the app writes the document here
//   auto sealed = buffer->Seal();                  // unmaps, seals; returns the fd to send
//   channel.Send(SubmitRequest{... document_bytes = n ...}, {sealed->get()});
//
// No name in /dev/shm, nothing to clean up after a crash, no permission to get wrong.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/mapped_region.h"
#include "common/result.h"
#include "common/unique_fd.h"

namespace mineru::shm {

class DocumentBuffer {
 public:
  // An empty (zero-filled) writable buffer of `size_bytes` (> 0). `populate` pre-faults the pages.
  static Result<DocumentBuffer> Create(uint64_t size_bytes, bool populate = false);
  // A buffer holding a copy of `bytes` (for apps that already have the document in memory), written
  // with write(2); it has no mapping (data() is empty): Seal() it and send.
  static Result<DocumentBuffer> CopyOf(std::span<const uint8_t> bytes);

  DocumentBuffer(DocumentBuffer&&) noexcept = default;
  DocumentBuffer& operator=(DocumentBuffer&&) noexcept = default;

  // The writable bytes; empty after Seal() and for CopyOf buffers.
  std::span<uint8_t> data() { return {mapping_.data(), static_cast<size_t>(mapping_.size())}; }
  uint64_t size() const { return size_bytes_; }

  // Drops the writable mapping and seals the memfd (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
  // F_SEAL_SEAL). Returns the fd, ready to send; the buffer is spent afterwards.
  Result<UniqueFd> Seal();

 private:
  DocumentBuffer(UniqueFd fd, MappedRegion mapping, uint64_t size_bytes)
      : fd_(std::move(fd)), mapping_(std::move(mapping)), size_bytes_(size_bytes) {}

  UniqueFd fd_;
  MappedRegion mapping_;
  uint64_t size_bytes_ = 0;
};

// memfd_create with close-on-exec and sealing allowed (and MFD_NOEXEC_SEAL where the kernel has it).
Result<UniqueFd> CreateMemfd(const char* debug_name);

}  // namespace mineru::shm
