// Where minerud listens, as every client (mineructl, the C and C++ API, the Python binding) looks for
// it. In order, the first that applies wins:
//   1. the path the caller gave (--socket, ClientOptions::socket_path);
//   2. $MINERU_SOCKET;
//   3. `socket = PATH` in the client configuration ($XDG_CONFIG_HOME/minerud/client.conf, else
//      ~/.config/minerud/client.conf);
//   4. the user's own daemon ($XDG_RUNTIME_DIR/minerud.sock) if it answers, else the system daemon's
//      socket (/run/minerud/minerud.sock). For root both are the system socket.
// Only step 4 falls through from one place to the next; a path named in 1-3 is the only one tried, so
// a typo is reported rather than silently routed to another daemon.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace mineru::client {

struct SocketCandidate {
  std::string path;
  std::string origin;  // for messages: "--socket", "$MINERU_SOCKET", "the system daemon", ...
};

// The client configuration file's path ($XDG_CONFIG_HOME/minerud/client.conf or
// ~/.config/minerud/client.conf); "" when neither variable is set.
std::string ClientConfigPath();

// The places to try, in order (see above). `explicit_path` is step 1 (empty: none). A client.conf that
// cannot be parsed is an error naming the file and line; a missing one is not.
Result<std::vector<SocketCandidate>> SocketCandidates(const std::string& explicit_path);

// Why connecting to `candidate` failed, with advice: for EACCES the socket's group and how to join it.
std::string DescribeConnectFailure(const SocketCandidate& candidate, const Status& status);

}  // namespace mineru::client
