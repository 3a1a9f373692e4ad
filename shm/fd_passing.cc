#include "shm/fd_passing.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/syscall.h"

namespace mineru::shm {
namespace {

constexpr uint32_t kScmMaxFd = 253;

Status SocketError(int err, const char* what) {
  if (err == EPIPE || err == ECONNRESET)
    return Status(StatusCode::kUnavailable, std::string(what) + ": peer closed the connection", err);
  return ErrnoStatus(err, what);
}

Status WaitFor(int fd, short events, int timeout_ms) {
  pollfd pfd{fd, events, 0};
  const int rc = RetryEintr([&] { return poll(&pfd, 1, timeout_ms); });
  if (rc < 0) return ErrnoStatus(errno, "poll");
  if (rc == 0) return DeadlineExceeded("timed out waiting for the socket");
  return Status::Ok();
}

}  // namespace

Status SendWithFds(int socket_fd, std::span<const uint8_t> bytes, std::span<const int> fds, int timeout_ms) {
  if (fds.size() > kScmMaxFd) {
    return InvalidArgument("cannot send " + std::to_string(fds.size()) + " fds in one message (max 253)");
  }
  if (bytes.empty()) return InvalidArgument("fds must travel with at least one byte");
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kScmMaxFd)];
  size_t sent = 0;
  bool fds_sent = fds.empty();
  while (sent < bytes.size()) {
    iovec iov{const_cast<uint8_t*>(bytes.data() + sent), bytes.size() - sent};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (!fds_sent) {
      std::memset(control, 0, sizeof(control));
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
      cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
      std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
    }
    const ssize_t n = RetryEintr([&] { return sendmsg(socket_fd, &msg, MSG_NOSIGNAL); });
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        MINERU_RETURN_IF_ERROR(WaitFor(socket_fd, POLLOUT, timeout_ms));
        continue;
      }
      return SocketError(errno, "sendmsg");
    }
    fds_sent = true;
    sent += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<Received> RecvWithFds(int socket_fd, std::span<uint8_t> buffer, uint32_t max_fds) {
  if (max_fds > kScmMaxFd) max_fds = kScmMaxFd;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kScmMaxFd)];
  iovec iov{buffer.data(), buffer.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  // Room for max_fds only: more fds than that set MSG_CTRUNC, and the kernel closes what did not fit.
  msg.msg_control = max_fds > 0 ? control : nullptr;
  msg.msg_controllen = max_fds > 0 ? CMSG_SPACE(sizeof(int) * max_fds) : 0;
  const ssize_t n = RetryEintr([&] { return recvmsg(socket_fd, &msg, MSG_CMSG_CLOEXEC); });
  Received out;
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      out.would_block = true;
      return out;
    }
    return SocketError(errno, "recvmsg");
  }
  // Take ownership of every fd first, so that each is closed whatever is wrong below.
  bool foreign_control = false;
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg != nullptr; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
      const size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
        out.fds.emplace_back(fd);
      }
    } else {
      foreign_control = true;
    }
  }
  if ((msg.msg_flags & MSG_CTRUNC) != 0) {
    const size_t got = out.fds.size();
    out.fds.clear();
    return DataLoss("received more file descriptors than allowed (" + std::to_string(max_fds) +
                    "); closed the " + std::to_string(got) + " that arrived");
  }
  if (foreign_control) {
    out.fds.clear();
    return InvalidArgument("unexpected control message (only SCM_RIGHTS is accepted)");
  }
  out.bytes = static_cast<uint64_t>(n);
  out.eof = n == 0;
  return out;
}

Result<std::pair<UniqueFd, UniqueFd>> SocketPair() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return ErrnoStatus(errno, "socketpair");
  return std::pair<UniqueFd, UniqueFd>(UniqueFd(sv[0]), UniqueFd(sv[1]));
}

Status SetNonBlocking(int fd, bool non_blocking) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return ErrnoStatus(errno, "fcntl(F_GETFL)");
  const int wanted = non_blocking ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (wanted != flags && fcntl(fd, F_SETFL, wanted) != 0) return ErrnoStatus(errno, "fcntl(F_SETFL)");
  return Status::Ok();
}

}  // namespace mineru::shm
