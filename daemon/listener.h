// The daemon's listening socket: bound to a path, or handed over by systemd (socket activation).
#pragma once

#include <sys/types.h>

#include <string>

#include "common/result.h"
#include "common/unique_fd.h"

namespace mineru::daemon {

struct ListenSocket {
  UniqueFd fd;             // non-blocking, close-on-exec, listening
  std::string path;        // the bound path (empty for an unnamed activated socket)
  bool activated = false;  // came from the service manager; never unlinked by us
};

// Binds and listens on `path` with permissions `mode`. A stale socket file nobody listens on is
// replaced; a live one (another minerud) is kAlreadyExists; any other file there is kAlreadyExists.
// The parent folder is created (0755) when missing.
Result<ListenSocket> ListenOnPath(const std::string& path, mode_t mode);

// The socket passed by the service manager ($LISTEN_FDS/$LISTEN_PID, fd 3). Returns an invalid fd when
// none was passed; an error when more than one was, or it is not a listening Unix stream socket.
// Unsets the variables so children do not inherit them.
Result<ListenSocket> TakeActivatedSocket();

// Removes the socket file of a socket we bound (not an activated one).
void RemoveSocketFile(const ListenSocket& socket);

// Parses "0660"-style permissions (octal, at most 0777).
Result<mode_t> ParseSocketMode(std::string_view text);

}  // namespace mineru::daemon
