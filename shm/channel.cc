#include "shm/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "common/syscall.h"
#include "shm/fd_passing.h"

namespace mineru::shm {
namespace {

constexpr size_t kReadChunkBytes = 64 * 1024;

Status WaitReadable(int fd, const Deadline& deadline) {
  pollfd pfd{fd, POLLIN, 0};
  const int rc = RetryEintr([&] { return poll(&pfd, 1, deadline.RemainingMillisForPoll()); });
  if (rc < 0) return ErrnoStatus(errno, "poll");
  if (rc == 0) return DeadlineExceeded("timed out waiting for a message");
  return Status::Ok();
}

}  // namespace

Result<Channel> Channel::Connect(const std::string& socket_path, Deadline deadline) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof(addr.sun_path)) {
    return InvalidArgument("socket path is empty or longer than " +
                           std::to_string(sizeof(addr.sun_path) - 1) + " bytes: " + socket_path);
  }
  std::memcpy(addr.sun_path, socket_path.data(), socket_path.size());
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return ErrnoStatus(errno, "socket");
  if (RetryEintr([&] { return connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)); }) != 0) {
    if (errno == EAGAIN || errno == EINPROGRESS) {
      // The listen backlog is full: wait for the connection to complete.
      pollfd pfd{fd.get(), POLLOUT, 0};
      const int rc = RetryEintr([&] { return poll(&pfd, 1, deadline.RemainingMillisForPoll()); });
      if (rc == 0) return DeadlineExceeded("timed out connecting to " + socket_path);
      int err = 0;
      socklen_t len = sizeof(err);
      if (rc < 0 || getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        return ErrnoStatus(errno, "connect " + socket_path);
      }
      if (err != 0) return ErrnoStatus(err, "connect " + socket_path);
    } else {
      const int err = errno;
      if (err == ECONNREFUSED || err == ENOENT) {
        return Status(StatusCode::kUnavailable,
                      "nothing listens on " + socket_path + " (is minerud running?)", err);
      }
      return ErrnoStatus(err, "connect " + socket_path);
    }
  }
  return Channel(std::move(fd), FrameLimits{});
}

Result<Channel> Channel::FromFd(UniqueFd socket_fd, FrameLimits limits) {
  if (!socket_fd) return InvalidArgument("Channel::FromFd: no socket");
  MINERU_RETURN_IF_ERROR(SetNonBlocking(socket_fd.get(), true));
  return Channel(std::move(socket_fd), limits);
}

Result<std::pair<Channel, Channel>> Channel::Pair() {
  MINERU_ASSIGN_OR_RETURN(auto fds, SocketPair());
  MINERU_ASSIGN_OR_RETURN(Channel a, FromFd(std::move(fds.first)));
  MINERU_ASSIGN_OR_RETURN(Channel b, FromFd(std::move(fds.second)));
  return std::pair<Channel, Channel>(std::move(a), std::move(b));
}

Status Channel::Send(const Message& message, std::span<const int> fds, Deadline deadline) {
  if (!fd_) return FailedPrecondition("channel is closed");
  if (!broken_.ok()) return broken_;
  if (fds.size() > kMaxFdsPerFrame) return InvalidArgument("too many fds for one frame");
  write_buffer_.clear();
  EncodeFrameInto(message, static_cast<uint32_t>(fds.size()), write_buffer_);
  Status sent = SendWithFds(fd_.get(), write_buffer_, fds, deadline.RemainingMillisForPoll());
  if (!sent.ok()) broken_ = sent;  // part of the frame may be out: the stream is no longer framed
  return sent;
}

Result<ReceivedMessage> Channel::Receive(Deadline deadline) {
  if (!fd_) return FailedPrecondition("channel is closed");
  if (!broken_.ok()) return broken_;
  auto got = ReceiveOnce(deadline);
  if (!got.ok() && got.status().code() != StatusCode::kDeadlineExceeded) broken_ = got.status();
  return got;
}

Result<ReceivedMessage> Channel::ReceiveOnce(Deadline deadline) {
  read_buffer_.resize(kReadChunkBytes);
  while (true) {
    MINERU_ASSIGN_OR_RETURN(std::optional<Frame> frame, assembler_.Pop());
    if (frame) {
      MINERU_ASSIGN_OR_RETURN(Message message, DecodeFrame(*frame));
      return ReceivedMessage{std::move(message), std::move(frame->fds)};
    }
    MINERU_ASSIGN_OR_RETURN(Received got, RecvWithFds(fd_.get(), read_buffer_, assembler_.limits().max_fds));
    if (got.would_block) {
      MINERU_RETURN_IF_ERROR(WaitReadable(fd_.get(), deadline));
      continue;
    }
    if (got.eof) {
      if (assembler_.mid_frame()) return DataLoss("peer closed the connection in the middle of a frame");
      return Unavailable("peer closed the connection");
    }
    MINERU_RETURN_IF_ERROR(
        assembler_.Feed(std::span<const uint8_t>(read_buffer_.data(), got.bytes), std::move(got.fds)));
  }
}

}  // namespace mineru::shm
