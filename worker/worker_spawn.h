// SpawnWorker: starts minerud-worker as a child of the daemon, in a pid namespace of its own where the
// kernel allows one. posix_spawn cannot make namespaces, so this is a clone(2) and execve(2):
//   - with `own_namespaces`, the child is made in a new user namespace and a new pid namespace at once
//     (an unprivileged daemon may make both together), maps the daemon's uid and gid to root in its user
//     namespace (so the worker may make its net, ipc, uts and mount namespaces itself, worker/sandbox.h)
//     and is pid 1 of its pid namespace: it sees no other process of the machine. Where user namespaces
//     are refused (a kernel setting, the system unit's RestrictNamespaces=), a pid namespace alone is
//     tried (a privileged daemon), then none;
//   - the child's stdin is /dev/null, `socket_fd` becomes its fd 3, every other fd of the daemon stays
//     behind (they are close-on-exec), its signal mask is empty and every signal has its default action;
//   - the pidfd comes from clone itself (CLONE_PIDFD): no window in which the pid could be another
//     process's.
// A worker that cannot be executed is an error here, not a child that dies later.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace mineru::worker {

struct SpawnedWorker {
  pid_t pid = -1;  // in the daemon's pid namespace
  UniqueFd pidfd;
};

Result<SpawnedWorker> SpawnWorker(const std::string& path, const std::vector<std::string>& args,
                                  int socket_fd, bool own_namespaces);

}  // namespace mineru::worker
