// SyscallGate: holds one thread of another process at its next fsync or fdatasync, with ptrace, so a
// test can play a slow disk under the real daemon without any hook in it. Only that thread is traced
// (PTRACE_SEIZE of its tid, then syscall stops); the rest of the process runs on. Held at the entry of
// the call, the thread finishes it when released (PTRACE_DETACH).
//
// ptrace requests must all come from the thread that attached: create, hold and release the gate on one
// test thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/clock.h"
#include "common/result.h"

namespace mineru::testing {

class SyscallGate {
 public:
  // Attaches to the thread of `pid` named `thread_name` (its /proc comm), waiting until `deadline` for a
  // thread that has not named itself yet.
  static Result<std::unique_ptr<SyscallGate>> Attach(pid_t pid, const std::string& thread_name,
                                                     Deadline deadline = Deadline::InMillis(10'000));
  ~SyscallGate();  // releases
  SyscallGate(const SyscallGate&) = delete;
  SyscallGate& operator=(const SyscallGate&) = delete;

  // Lets the thread run until it enters fsync or fdatasync, and keeps it stopped there. False when the
  // deadline passes first (the thread runs on, still traced).
  bool HoldAtNextSync(Deadline deadline);
  // Detaches: a held thread goes on with its call.
  void Release();

 private:
  explicit SyscallGate(pid_t tid) : tid_(tid) {}
  pid_t tid_;
  bool attached_ = true;
};

}  // namespace mineru::testing
