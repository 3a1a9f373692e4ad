// Channel: a blocking, message-level view of one control-socket connection, for the client side
// (libmineru-client, mineructl) and for tests. The daemon uses FrameAssembler + RecvWithFds in its
// event loop instead.
//
// Every call takes a timeout; the socket is non-blocking underneath and waits use poll(). A Channel
// is not thread-safe: one thread sends and receives (or guard it). A failed Send or Receive other
// than a Receive timeout (a frame may be half sent, a protocol error, a truncated frame) leaves the
// channel broken: every later call returns that error; close it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "common/unique_fd.h"
#include "shm/frame_assembler.h"
#include "shm/protocol.h"

namespace mineru::shm {

struct ReceivedMessage {
  Message message;
  std::vector<UniqueFd> fds;  // as many as the message type requires (checked)
};

class Channel {
 public:
  // Connects to the daemon's socket at `socket_path`. Errors: kUnavailable (nobody listening /
  // no such socket: ECONNREFUSED, ENOENT), kPermissionDenied, kDeadlineExceeded.
  static Result<Channel> Connect(const std::string& socket_path,
                                 Deadline deadline = Deadline::InMillis(5000));
  // Wraps a connected stream socket (made non-blocking here).
  static Result<Channel> FromFd(UniqueFd socket_fd, FrameLimits limits = {});
  // Two connected channels (socketpair), for tests and benchmarks.
  static Result<std::pair<Channel, Channel>> Pair();

  Channel(Channel&&) noexcept = default;
  Channel& operator=(Channel&&) noexcept = default;

  // Sends `message` with `fds` (borrowed; the frame announces fds.size()).
  Status Send(const Message& message, std::span<const int> fds = {}, Deadline deadline = Deadline::Never());
  // Waits for the next message. Errors: kUnavailable (peer closed between frames), kDataLoss (peer
  // closed mid-frame, or a broken frame), kDeadlineExceeded, and the decoder's errors.
  Result<ReceivedMessage> Receive(Deadline deadline = Deadline::Never());

  int fd() const { return fd_.get(); }
  // Gives the socket back (e.g. to poll it alongside a ring's event fd).
  UniqueFd ReleaseFd() { return std::move(fd_); }

 private:
  Channel(UniqueFd fd, FrameLimits limits) : fd_(std::move(fd)), assembler_(limits) {}
  Result<ReceivedMessage> ReceiveOnce(Deadline deadline);

  UniqueFd fd_;
  FrameAssembler assembler_;
  std::vector<uint8_t> read_buffer_;
  std::vector<uint8_t> write_buffer_;
  Status broken_;  // the error that broke the channel
};

}  // namespace mineru::shm
