// Running the real minerud and mineructl binaries from tests: fork/exec with captured output, an
// optional uid to run as, extra environment and fds to hand over.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mineru::testing {

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed by one
  std::string out;
  std::string err;
};

struct SpawnOptions {
  std::map<std::string, std::string> env;  // added to (or replacing) the test's environment
  std::optional<uid_t> uid;                // run as this user (and its primary group); needs root
  std::optional<gid_t> gid;
  int pass_fd_as_3 = -1;        // this fd becomes fd 3 in the child (socket activation)
  bool set_listen_pid = false;  // LISTEN_PID = the child's pid (with pass_fd_as_3)
  std::string stdin_file;       // redirect stdin from this file
};

// Starts `argv` in the background; stdout/stderr go to the files given (empty: /dev/null).
pid_t Spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const std::string& stdout_path,
            const std::string& stderr_path);

// Runs `argv` to completion, capturing stdout and stderr; fails the test after `timeout_ms`.
RunResult RunProgram(const std::vector<std::string>& argv, const SpawnOptions& options = {},
                     int timeout_ms = 120'000);

// Waits for `pid`; returns the exit code (128 + signal when killed), or -1 after `timeout_ms`.
int WaitExit(pid_t pid, int timeout_ms);

// Open fds of a process (entries in /proc/PID/fd).
int CountFds(pid_t pid);

std::string ReadFile(const std::string& path);

}  // namespace mineru::testing
