// FrameAssembler: turns the byte chunks (and fds) read from a non-blocking stream socket into frames.
//
// Made for an event loop: when the socket is readable, read with RecvWithFds (shm/fd_passing.h) —
// libuv's uv_read cannot receive fds — then Feed() the bytes and fds, then Pop() until it yields no
// frame. The header of each frame is checked as soon as its 24 bytes are in, before any payload is
// buffered, so a hostile length never allocates.
//
// fd rule: send each frame with one sendmsg, fds attached (SendWithFds does). The kernel hands the
// fds over with the read that reaches the first bytes of that sendmsg, and ends that read there (it
// may have glued earlier fd-less bytes in front). So fds fed with a chunk belong to the last frame
// that starts inside that chunk, and that frame's header must announce exactly that many. Fds with no
// frame starting in their chunk, or a count mismatch, are a protocol error.
//
// After any error the assembler is broken (every later call returns the same error) and has closed
// every fd it held: the caller closes the connection. Not thread-safe; one per connection.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "shm/frame.h"

namespace mineru::shm {

class FrameAssembler {
 public:
  explicit FrameAssembler(FrameLimits limits = {});

  // Takes `bytes` (copied) and `fds` (owned from now on) from one read.
  Status Feed(std::span<const uint8_t> bytes, std::vector<UniqueFd> fds = {});
  // The next complete frame, std::nullopt when more bytes are needed, or the protocol error.
  Result<std::optional<Frame>> Pop();

  // Bytes held that do not yet form a complete frame (a peer that stops mid-frame leaves some).
  uint64_t buffered_bytes() const { return buffer_.size() - consumed_; }
  // True when a frame has started but is incomplete: EOF now means a truncated frame.
  bool mid_frame() const { return buffered_bytes() != 0 || !fd_batches_.empty(); }
  bool broken() const { return !error_.ok(); }
  const FrameLimits& limits() const { return limits_; }
  // Fds received and not yet handed out in a frame.
  uint64_t fds_pending() const;

 private:
  struct FdBatch {
    uint64_t begin_offset;  // stream offset of the chunk's first byte
    uint64_t end_offset;    // one past its last byte
    std::vector<UniqueFd> fds;
  };

  Status Fail(Status status);

  FrameLimits limits_;
  std::vector<uint8_t> buffer_;  // unconsumed stream bytes live in [consumed_, size())
  uint64_t consumed_ = 0;
  uint64_t stream_offset_ = 0;  // stream offset of buffer_[0]
  std::deque<FdBatch> fd_batches_;
  std::optional<FrameHeader> header_;  // parsed header of the frame being assembled
  std::vector<UniqueFd> frame_fds_;    // fds claimed by that frame
  Status error_;
};

}  // namespace mineru::shm
