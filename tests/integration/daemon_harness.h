// DaemonHarness: one real minerud on a temporary socket and state folder, started the way systemd
// would (NOTIFY_SOCKET set, READY=1 awaited), and the real mineructl pointed at it.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/unique_fd.h"
#include "tests/integration/subprocess.h"

namespace mineru::testing {

// The binaries under test (set by CMake).
std::string MinerudPath();
std::string MineructlPath();

class DaemonHarness {
 public:
  // `dir` is the test's temporary folder (must exist); the socket, state and log live there.
  explicit DaemonHarness(std::string dir);
  ~DaemonHarness();

  // Starts minerud with --socket, --state-dir, --workers 2 (unless given) and `extra`; waits for
  // READY=1 on the notify socket.
  ::testing::AssertionResult Start(const std::vector<std::string>& extra = {}, SpawnOptions spawn = {});
  // Sends `sig` and waits for the exit; returns the exit code (-1 on timeout, then kills it).
  int Stop(int sig = SIGTERM, int timeout_ms = 30'000);
  void Kill9();
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Waits for a notify datagram containing `text` (earlier ones are kept and searched first).
  bool WaitNotify(const std::string& text, int timeout_ms = 10'000);
  std::string Log() const { return ReadFile(log_path_); }

  // Runs mineructl --socket SOCKET ARGS...
  RunResult Ctl(const std::vector<std::string>& args, const SpawnOptions& spawn = {},
                int timeout_ms = 120'000) const;

  const std::string& dir() const { return dir_; }
  const std::string& socket_path() const { return socket_path_; }
  const std::string& state_dir() const { return state_dir_; }
  void set_state_dir(std::string dir) { state_dir_ = std::move(dir); }
  // Runs this mineructl instead of the build's (a copy another user can execute).
  void set_ctl_path(std::string path) { ctl_path_ = std::move(path); }

 private:
  std::string dir_;
  std::string socket_path_;
  std::string state_dir_;
  std::string log_path_;
  std::string ctl_path_ = MineructlPath();
  std::string notify_path_;
  UniqueFd notify_fd_;
  // A thread drains the notify socket all the time, as systemd does: a full datagram queue would
  // block the daemon's sd_notify calls.
  std::thread notify_reader_;
  bool stop_reader_ = false;  // Guarded by notify_mu_.
  std::mutex notify_mu_;
  std::condition_variable notify_cv_;
  std::vector<std::string> notifications_;  // Guarded by notify_mu_.
  pid_t pid_ = -1;
};

// A sample PDF from ../shared (born-digital, 4 pages), or "" when the corpus is absent.
std::string SamplePdf(const std::filesystem::path& shared);

}  // namespace mineru::testing
