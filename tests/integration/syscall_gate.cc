#include "tests/integration/syscall_gate.h"

#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

namespace mineru::testing {
namespace {

// Waits for the next stop of `tid` until `deadline`; false on timeout or when it is gone.
bool WaitStop(pid_t tid, int* status, Deadline deadline) {
  for (;;) {
    const pid_t r = ::waitpid(tid, status, __WALL | WNOHANG);
    if (r == tid) return WIFSTOPPED(*status);
    if (r < 0 && errno != EINTR) return false;
    if (deadline.Expired()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

Result<std::unique_ptr<SyscallGate>> SyscallGate::Attach(pid_t pid, const std::string& thread_name,
                                                         Deadline deadline) {
  namespace fs = std::filesystem;
  // A thread names itself once it runs: it may not have yet when the process says it is ready.
  for (;;) {
    std::error_code ec;
    for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
      std::string comm;
      std::getline(std::ifstream(task.path() / "comm"), comm);
      if (comm != thread_name) continue;
      const pid_t tid = static_cast<pid_t>(std::stol(task.path().filename().string()));
      if (::ptrace(PTRACE_SEIZE, tid, nullptr, PTRACE_O_TRACESYSGOOD) != 0) {
        return ErrnoStatus(errno, "ptrace(PTRACE_SEIZE) of thread " + thread_name);
      }
      return std::unique_ptr<SyscallGate>(new SyscallGate(tid));
    }
    if (deadline.Expired()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return NotFound("no thread named '" + thread_name + "' in process " + std::to_string(pid));
}

SyscallGate::~SyscallGate() { Release(); }

bool SyscallGate::HoldAtNextSync(Deadline deadline) {
  int status = 0;
  if (::ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) != 0 || !WaitStop(tid_, &status, deadline))
    return false;
  for (;;) {
    // Re-inject a signal the thread stopped for; nothing for our own stops.
    int sig = 0;
    if (WSTOPSIG(status) != (SIGTRAP | 0x80) && (status >> 16) == 0 && WSTOPSIG(status) != SIGTRAP) {
      sig = WSTOPSIG(status);
    }
    if (::ptrace(PTRACE_SYSCALL, tid_, nullptr, reinterpret_cast<void*>(static_cast<intptr_t>(sig))) != 0) {
      return false;
    }
    if (!WaitStop(tid_, &status, deadline)) return false;
    if (WSTOPSIG(status) != (SIGTRAP | 0x80)) continue;
    __ptrace_syscall_info info{};
    if (::ptrace(static_cast<__ptrace_request>(PTRACE_GET_SYSCALL_INFO), tid_,
                 reinterpret_cast<void*>(sizeof(info)), &info) <= 0) {
      continue;
    }
    if (info.op == PTRACE_SYSCALL_INFO_ENTRY &&
        (info.entry.nr == SYS_fsync || info.entry.nr == SYS_fdatasync)) {
      return true;
    }
  }
}

void SyscallGate::Release() {
  if (!attached_) return;
  attached_ = false;
  if (::ptrace(PTRACE_DETACH, tid_, nullptr, nullptr) == 0) return;
  // Detaching needs the thread stopped: stop it first if it runs.
  if (::ptrace(PTRACE_INTERRUPT, tid_, nullptr, nullptr) == 0) {
    int status = 0;
    WaitStop(tid_, &status, Deadline::InMillis(5000));
    ::ptrace(PTRACE_DETACH, tid_, nullptr, nullptr);
  }
}

}  // namespace mineru::testing
