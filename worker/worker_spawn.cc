#include "worker/worker_spawn.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "common/syscall.h"

extern char** environ;

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

namespace mineru::worker {
namespace {

constexpr int kWorkerSocketFd = 3;  // minerud-worker's --socket-fd

// What the child needs, made before the clone: between clone and execve the child is a copy of one
// thread of a threaded daemon, so it allocates nothing and calls the kernel directly (a sanitizer's
// interceptors and glibc's locks belong to the parent's threads).
struct ChildPlan {
  const char* path = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int devnull = -1;
  int socket_fd = -1;
  int error_pipe = -1;  // close-on-exec: end of file once the exec succeeded, else the child's errno
  bool map_ids = false;
  char uid_map[32] = {};
  char gid_map[32] = {};
};

// The kernel's struct sigaction (rt_sigaction), enough to set SIG_DFL.
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  uint64_t mask;
};

long WriteFile(const char* path, const char* text) {
  const long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fd;
  const long n = ::syscall(SYS_write, fd, text, std::strlen(text));
  ::syscall(SYS_close, fd);
  return n;
}

// Moves `from` to `to` without close-on-exec (dup3 refuses equal fds: then the flag is cleared).
long MoveFd(int from, int to) {
  if (from == to) return ::syscall(SYS_fcntl, to, F_SETFD, 0);
  return ::syscall(SYS_dup3, from, to, 0);
}

[[noreturn]] void RunChild(const ChildPlan& plan) {
  KernelSigaction dfl{};
  dfl.handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof(uint64_t));
  }
  const uint64_t none = 0;
  ::syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, nullptr, sizeof none);
  if (plan.map_ids) {
    // Root of its own user namespace (and nothing outside it). Without the maps the worker still runs,
    // only without the namespaces it makes itself, and its sandbox report says so.
    WriteFile("/proc/self/setgroups", "deny");
    WriteFile("/proc/self/uid_map", plan.uid_map);
    WriteFile("/proc/self/gid_map", plan.gid_map);
  }
  long rc = MoveFd(plan.devnull, 0);
  if (rc >= 0) rc = MoveFd(plan.socket_fd, kWorkerSocketFd);
  if (rc >= 0) rc = ::syscall(SYS_execve, plan.path, plan.argv, plan.envp);
  const int err = errno;
  ::syscall(SYS_write, plan.error_pipe, &err, sizeof err);
  ::syscall(SYS_exit_group, 127);
  __builtin_unreachable();
}

// A clone refused for its namespaces (not for want of memory or processes).
bool NamespacesRefused(int err) { return err == EPERM || err == EINVAL || err == ENOSPC || err == EUSERS; }

}  // namespace

Result<SpawnedWorker> SpawnWorker(const std::string& path, const std::vector<std::string>& args,
                                  int socket_fd, bool own_namespaces) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);

  UniqueFd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull) return ErrnoStatus(errno, "/dev/null");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus(errno, "pipe2");
  UniqueFd read_end(fds[0]);
  // Above the fds the child moves things to, so that moving them cannot close it.
  UniqueFd write_end(::fcntl(fds[1], F_DUPFD_CLOEXEC, kWorkerSocketFd + 1));
  ::close(fds[1]);
  if (!write_end) return ErrnoStatus(errno, "fcntl(F_DUPFD_CLOEXEC)");

  ChildPlan plan;
  plan.path = path.c_str();
  plan.argv = argv.data();
  plan.envp = environ;
  plan.devnull = devnull.get();
  plan.socket_fd = socket_fd;
  plan.error_pipe = write_end.get();
  std::snprintf(plan.uid_map, sizeof plan.uid_map, "0 %u 1\n", static_cast<unsigned>(::geteuid()));
  std::snprintf(plan.gid_map, sizeof plan.gid_map, "0 %u 1\n", static_cast<unsigned>(::getegid()));

  const unsigned long with_user = CLONE_NEWUSER | CLONE_NEWPID;
  const unsigned long tries[] = {with_user, CLONE_NEWPID, 0};
  long pid = -1;
  int pidfd = -1;
  for (unsigned long flags : tries) {
    if (!own_namespaces && flags != 0) continue;
    plan.map_ids = (flags & CLONE_NEWUSER) != 0;
    // Like fork (no new stack: the child runs on a copy of this one), with the pidfd from the kernel.
    pid = ::syscall(SYS_clone, flags | CLONE_PIDFD | SIGCHLD, nullptr, &pidfd, nullptr, 0);
    if (pid == 0) RunChild(plan);
    if (pid > 0 || flags == 0 || !NamespacesRefused(errno)) break;
  }
  if (pid < 0) return ErrnoStatus(errno, "starting the document worker '" + path + "' (clone)");
  UniqueFd child(pidfd);
  write_end.reset();
  int err = 0;
  const ssize_t n = RetryEintr([&] { return ::read(read_end.get(), &err, sizeof err); });
  if (n == static_cast<ssize_t>(sizeof err)) {
    siginfo_t info{};
    RetryEintr([&] { return ::waitid(static_cast<idtype_t>(P_PIDFD), child.get(), &info, WEXITED); });
    return ErrnoStatus(err, "starting the document worker '" + path + "'");
  }
  return SpawnedWorker{static_cast<pid_t>(pid), std::move(child)};
}

}  // namespace mineru::worker
