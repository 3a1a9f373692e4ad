#include "daemon/listener.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "common/syscall.h"

namespace mineru::daemon {
namespace {

Result<sockaddr_un> MakeAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    return InvalidArgument("socket path '" + path + "' is empty or longer than " +
                           std::to_string(sizeof addr.sun_path - 1) + " bytes");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// True when something accepts connections at `path`.
bool SomeoneListens(const sockaddr_un& addr) {
  UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe) return false;
  return RetryEintr([&] {
           return ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
         }) == 0;
}

}  // namespace

Result<ListenSocket> ListenOnPath(const std::string& path, mode_t mode) {
  MINERU_ASSIGN_OR_RETURN(sockaddr_un addr, MakeAddress(path));
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(parent, ec)) {
      std::filesystem::create_directories(parent, ec);
      if (ec) return ErrnoStatus(ec.value(), "create " + parent.string());
      ::chmod(parent.c_str(), 0755);
    }
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return Status(StatusCode::kAlreadyExists, path + " exists and is not a socket");
    if (SomeoneListens(addr)) {
      return Status(StatusCode::kAlreadyExists, "another daemon is already listening on " + path);
    }
    if (::unlink(path.c_str()) != 0) return ErrnoStatus(errno, "remove stale socket " + path);
  }
  ListenSocket out;
  out.fd.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!out.fd) return ErrnoStatus(errno, "socket");
  if (::bind(out.fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return ErrnoStatus(errno, "bind " + path);
  }
  out.path = path;
  if (::chmod(path.c_str(), mode) != 0) {
    int err = errno;
    ::unlink(path.c_str());
    return ErrnoStatus(err, "chmod " + path);
  }
  if (::listen(out.fd.get(), SOMAXCONN) != 0) {
    int err = errno;
    ::unlink(path.c_str());
    return ErrnoStatus(err, "listen " + path);
  }
  return out;
}

Result<ListenSocket> TakeActivatedSocket() {
  int n = sd_listen_fds(/*unset_environment=*/1);
  if (n < 0) return ErrnoStatus(-n, "sd_listen_fds");
  ListenSocket out;
  if (n == 0) return out;
  if (n > 1) {
    for (int i = 0; i < n; ++i) ::close(SD_LISTEN_FDS_START + i);
    return InvalidArgument("the service manager passed " + std::to_string(n) + " sockets; minerud takes one");
  }
  int fd = SD_LISTEN_FDS_START;
  int r = sd_is_socket_unix(fd, SOCK_STREAM, /*listening=*/1, nullptr, 0);
  if (r <= 0) {
    ::close(fd);
    return InvalidArgument("the passed fd 3 is not a listening Unix stream socket");
  }
  out.fd.reset(fd);
  out.activated = true;
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0)
    return ErrnoStatus(errno, "fcntl O_NONBLOCK");
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  sockaddr_un addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 && addr.sun_path[0] != '\0') {
    out.path = addr.sun_path;
  }
  return out;
}

void RemoveSocketFile(const ListenSocket& socket) {
  if (!socket.activated && !socket.path.empty()) ::unlink(socket.path.c_str());
}

Result<mode_t> ParseSocketMode(std::string_view text) {
  if (text.empty() || text.size() > 4)
    return InvalidArgument("'" + std::string(text) + "' is not an octal mode like 0660");
  mode_t mode = 0;
  for (char c : text) {
    if (c < '0' || c > '7')
      return InvalidArgument("'" + std::string(text) + "' is not an octal mode like 0660");
    mode = mode * 8 + static_cast<mode_t>(c - '0');
  }
  if (mode > 0777) return InvalidArgument("socket mode must be at most 0777");
  return mode;
}

}  // namespace mineru::daemon
