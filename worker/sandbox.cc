#include "worker/sandbox.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(MINERU_TSAN)
#define MINERU_WORKER_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MINERU_WORKER_SANITIZED 1
#endif
#endif

namespace mineru::worker {
namespace {

constexpr int kNamespaces = CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNS;

std::string EnterNamespaces(bool* complete) {
  *complete = false;
  if (::unshare(CLONE_NEWUSER | kNamespaces) == 0) {
    *complete = true;
    return "namespaces user,net,ipc,uts,mount";
  }
  const int user_errno = errno;
  if (::unshare(kNamespaces) == 0) {  // a privileged daemon without user namespaces
    *complete = true;
    return "namespaces net,ipc,uts,mount (no user namespace: " + std::string(std::strerror(user_errno)) + ")";
  }
  // Each on its own: take what is allowed.
  std::string made;
  for (auto [flag, name] : {std::pair{CLONE_NEWNET, "net"},
                            {CLONE_NEWIPC, "ipc"},
                            {CLONE_NEWUTS, "uts"},
                            {CLONE_NEWNS, "mount"}}) {
    if (::unshare(flag) == 0) made += (made.empty() ? "" : ",") + std::string(name);
  }
  return "namespaces " + (made.empty() ? std::string("none") : made) +
         " (the kernel or the service refused " + "new namespaces: " + std::strerror(user_errno) +
         "; seccomp still denies files, sockets and exec)";
}

Status CloseOtherFds(const std::vector<int>& keep) {
  std::vector<int> sorted = keep;
  sorted.push_back(2);
  std::sort(sorted.begin(), sorted.end());
  unsigned first = 3;
  for (int fd : sorted) {
    if (fd < 3) continue;
    if (static_cast<unsigned>(fd) > first) {
      if (::syscall(SYS_close_range, first, static_cast<unsigned>(fd) - 1, 0) != 0) {
        return ErrnoStatus(errno, "close_range");
      }
    }
    first = static_cast<unsigned>(fd) + 1;
  }
  if (::syscall(SYS_close_range, first, ~0u, 0) != 0) return ErrnoStatus(errno, "close_range");
  return Status::Ok();
}

Status SetLimit(int resource, rlim_t soft, rlim_t hard, const char* name) {
  rlimit r{soft, hard};
  if (::setrlimit(resource, &r) != 0) return ErrnoStatus(errno, std::string("setrlimit(") + name + ")");
  return Status::Ok();
}

struct FilterDeleter {
  void operator()(scmp_filter_ctx ctx) const { seccomp_release(ctx); }
};

Status Rule(scmp_filter_ctx ctx, uint32_t action, int syscall_nr,
            std::initializer_list<scmp_arg_cmp> args = {}) {
  const int rc = seccomp_rule_add_array(ctx, action, syscall_nr, static_cast<unsigned>(args.size()),
                                        args.size() == 0 ? nullptr : args.begin());
  if (rc != 0) return ErrnoStatus(-rc, "seccomp_rule_add(" + std::to_string(syscall_nr) + ")");
  return Status::Ok();
}

Status InstallSeccomp() {
  std::unique_ptr<void, FilterDeleter> ctx(seccomp_init(SCMP_ACT_ERRNO(EPERM)));
  if (!ctx) return Internal("seccomp_init failed");
  scmp_filter_ctx c = ctx.get();
  const uint32_t allow = SCMP_ACT_ALLOW;
  // Plain allowed calls: memory, threads, time, signals to itself, the socket it has, memfds.
  for (int nr : {SCMP_SYS(read),
                 SCMP_SYS(write),
                 SCMP_SYS(readv),
                 SCMP_SYS(writev),
                 SCMP_SYS(close),
                 SCMP_SYS(fstat),
                 SCMP_SYS(lseek),
                 SCMP_SYS(pread64),
                 SCMP_SYS(munmap),
                 SCMP_SYS(mremap),
                 SCMP_SYS(madvise),
                 SCMP_SYS(brk),
                 SCMP_SYS(futex),
                 SCMP_SYS(set_robust_list),
                 SCMP_SYS(rseq),
                 SCMP_SYS(exit),
                 SCMP_SYS(exit_group),
                 SCMP_SYS(getpid),
                 SCMP_SYS(gettid),
                 SCMP_SYS(getppid),
                 SCMP_SYS(rt_sigaction),
                 SCMP_SYS(rt_sigprocmask),
                 SCMP_SYS(rt_sigreturn),
                 SCMP_SYS(sigaltstack),
                 SCMP_SYS(restart_syscall),
                 SCMP_SYS(clock_gettime),
                 SCMP_SYS(clock_getres),
                 SCMP_SYS(clock_nanosleep),
                 SCMP_SYS(nanosleep),
                 SCMP_SYS(gettimeofday),
                 SCMP_SYS(getrusage),
                 SCMP_SYS(sched_yield),
                 SCMP_SYS(sched_getaffinity),
                 SCMP_SYS(getrandom),
                 SCMP_SYS(sysinfo),
                 SCMP_SYS(memfd_create),
                 SCMP_SYS(ftruncate),
                 SCMP_SYS(fcntl),
                 SCMP_SYS(sendmsg),
                 SCMP_SYS(recvmsg),
                 SCMP_SYS(membarrier),
                 SCMP_SYS(uname),
                 SCMP_SYS(getuid),
                 SCMP_SYS(geteuid),
                 SCMP_SYS(getgid),
                 SCMP_SYS(getegid)}) {
    MINERU_RETURN_IF_ERROR(Rule(c, allow, nr));
  }
  // Memory, never executable (no code loaded or written at run time).
  MINERU_RETURN_IF_ERROR(Rule(c, allow, SCMP_SYS(mmap), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)}));
  MINERU_RETURN_IF_ERROR(Rule(c, allow, SCMP_SYS(mprotect), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)}));
  // fstat through fstatat on an fd (glibc's fstat), not path lookups.
  MINERU_RETURN_IF_ERROR(
      Rule(c, allow, SCMP_SYS(newfstatat), {SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH)}));
  // Threads only (CLONE_THREAD), never a new process; clone3 answers ENOSYS so glibc uses clone.
  MINERU_RETURN_IF_ERROR(
      Rule(c, allow, SCMP_SYS(clone), {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)}));
  MINERU_RETURN_IF_ERROR(Rule(c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3)));
  // Signals to itself only (abort(), raise()).
  const auto self = static_cast<scmp_datum_t>(::getpid());
  MINERU_RETURN_IF_ERROR(Rule(c, allow, SCMP_SYS(tgkill), {SCMP_A0(SCMP_CMP_EQ, self)}));
  MINERU_RETURN_IF_ERROR(Rule(c, allow, SCMP_SYS(kill), {SCMP_A0(SCMP_CMP_EQ, self)}));
  // Reading its limits (getrlimit), never raising them.
  MINERU_RETURN_IF_ERROR(Rule(c, allow, SCMP_SYS(prlimit64), {SCMP_A2(SCMP_CMP_EQ, 0)}));
#if defined(MINERU_WORKER_SANITIZED)
  // A sanitizer's runtime tells readable memory from unreadable by writing it to a pipe of its own
  // (UBSan's vptr check does on every virtual call it checks): without one every check reports an
  // invalid object. Sanitizer builds only; a pipe opens nothing outside the process.
  MINERU_RETURN_IF_ERROR(Rule(c, allow, SCMP_SYS(pipe)));
  MINERU_RETURN_IF_ERROR(Rule(c, allow, SCMP_SYS(pipe2)));
#endif
  // Files and sockets: a plain "permission denied", so a library that tries one fails cleanly.
  for (int nr : {SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(creat), SCMP_SYS(socket),
                 SCMP_SYS(socketpair)}) {
    MINERU_RETURN_IF_ERROR(Rule(c, SCMP_ACT_ERRNO(EACCES), nr));
  }
  if (int rc = seccomp_attr_set(c, SCMP_FLTATR_CTL_NNP, 1); rc != 0) return ErrnoStatus(-rc, "seccomp NNP");
  if (int rc = seccomp_load(c); rc != 0) return ErrnoStatus(-rc, "seccomp_load");
  return Status::Ok();
}

}  // namespace

Result<SandboxReport> EnterSandbox(const SandboxOptions& options) {
  SandboxReport report;
  std::string parts;
  if (options.namespaces) {
    parts = EnterNamespaces(&report.namespaces_complete);
    // The pid namespace is made with the process (worker_spawn.h): unshare cannot move its caller.
    const bool own_pids = ::getpid() == 1;
    parts += own_pids ? "; pid namespace of its own" : "; the daemon's pid namespace";
    report.namespaces_complete = report.namespaces_complete && own_pids;
  } else {
    parts = "namespaces not requested";
  }
  MINERU_RETURN_IF_ERROR(CloseOtherFds(options.keep_fds));
  MINERU_RETURN_IF_ERROR(SetLimit(RLIMIT_CORE, 0, 0, "RLIMIT_CORE"));
  MINERU_RETURN_IF_ERROR(SetLimit(RLIMIT_NOFILE, 64, 64, "RLIMIT_NOFILE"));
  if (options.cpu_seconds > 0) {
    // From now: what the worker spent starting (loading OCR models) does not count.
    rusage used{};
    ::getrusage(RUSAGE_SELF, &used);
    const rlim_t soft =
        static_cast<rlim_t>(used.ru_utime.tv_sec + used.ru_stime.tv_sec + 1) + options.cpu_seconds;
    const rlim_t hard = soft + 1 + (std::max<uint64_t>(options.cpu_documents, 1) - 1) * options.cpu_seconds;
    MINERU_RETURN_IF_ERROR(SetLimit(RLIMIT_CPU, soft, hard, "RLIMIT_CPU"));
    parts += "; RLIMIT_CPU " + std::to_string(options.cpu_seconds) + " s";
  }
#if defined(MINERU_WORKER_SANITIZED)
  parts += "; no RLIMIT_AS (a sanitizer build reserves its shadow memory)";
#else
  if (options.address_space_bytes > 0) {
    MINERU_RETURN_IF_ERROR(
        SetLimit(RLIMIT_AS, options.address_space_bytes, options.address_space_bytes, "RLIMIT_AS"));
    parts += "; RLIMIT_AS " + std::to_string(options.address_space_bytes >> 20) + " MiB";
  }
#endif
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return ErrnoStatus(errno, "prctl(PR_SET_DUMPABLE)");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return ErrnoStatus(errno, "prctl(PR_SET_NO_NEW_PRIVS)");
  MINERU_RETURN_IF_ERROR(InstallSeccomp());
  parts += "; no_new_privs; seccomp (no files, sockets, exec or new processes)";
  report.summary = std::move(parts);
  return report;
}

}  // namespace mineru::worker
