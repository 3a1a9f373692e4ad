// Sandbox: what a document worker gives up before it reads a document. Called once, early in
// minerud-worker's main, while the process is still single-threaded:
//   1. fresh user, network, IPC, UTS and mount namespaces (no network interface but a loopback that is
//      down); where the kernel or the service manager refuses them (no unprivileged user namespaces,
//      RestrictNamespaces=), without them, and the report says which were not made. The pid namespace
//      cannot be entered from inside: minerud makes the worker in one (worker_spawn.h), and the report
//      says whether it is pid 1 of its own;
//   2. every fd but stdin/stdout/stderr and the ones kept is closed;
//   3. RLIMIT_AS (address space) and RLIMIT_CPU (seconds of CPU; SIGXCPU, then SIGKILL a second later;
//      the hard limit leaves room for `cpu_documents` documents: minerud raises the soft limit by
//      cpu_seconds for each next document of a reused worker, never past the hard one),
//      RLIMIT_NOFILE and RLIMIT_CORE 0 (not RLIMIT_FSIZE: it would cap the result memfds too); not dumpable
//      (no ptrace, no core);
//   4. PR_SET_NO_NEW_PRIVS and a seccomp filter (libseccomp) that allows what parsing needs (memory,
//      threads, time, memfds, sendmsg/recvmsg on the socket it has) and refuses the rest with an errno:
//      open/openat/creat, socket, connect, execve, ptrace, kill of another process, mmap with PROT_EXEC,
//      mount, ... fail with EACCES or EPERM. A filter that cannot be installed is an error: the worker
//      never parses unconfined.
// A sanitizer build reserves terabytes of address space for its shadow memory: there RLIMIT_AS is left
// out and the report says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace mineru::worker {

struct SandboxOptions {
  uint64_t address_space_bytes = 0;  // RLIMIT_AS; 0: none
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU, counted from the call; 0: none
  uint64_t cpu_documents = 1;        // the hard RLIMIT_CPU allows this many times cpu_seconds
  std::vector<int> keep_fds;         // fds (besides 0-2) that stay open
  bool namespaces = true;
};

// What was applied, for the daemon's log: "namespaces user,net,ipc,uts,mount; seccomp; ...".
struct SandboxReport {
  std::string summary;
  bool namespaces_complete = false;
};

Result<SandboxReport> EnterSandbox(const SandboxOptions& options);

}  // namespace mineru::worker
