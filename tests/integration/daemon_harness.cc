#include "tests/integration/daemon_harness.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "common/clock.h"

namespace mineru::testing {

std::string MinerudPath() { return MINERUD_PATH; }
std::string MineructlPath() { return MINERUCTL_PATH; }

std::string SamplePdf(const std::filesystem::path& shared) {
  auto p = shared / "corpus/docling/pdf/normal_4pages.pdf";
  return std::filesystem::exists(p) ? p.string() : "";
}

DaemonHarness::DaemonHarness(std::string dir)
    : dir_(std::move(dir)),
      socket_path_(dir_ + "/minerud.sock"),
      state_dir_(dir_ + "/state"),
      log_path_(dir_ + "/minerud.log"),
      notify_path_(dir_ + "/notify.sock") {
  notify_fd_.reset(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, notify_path_.c_str(), sizeof addr.sun_path - 1);
  ::bind(notify_fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  notify_reader_ = std::thread([this] {
    for (;;) {
      {
        std::lock_guard lock(notify_mu_);
        if (stop_reader_) return;
      }
      pollfd p{notify_fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = ::recv(notify_fd_.get(), buf, sizeof buf, MSG_DONTWAIT);
      if (n <= 0) continue;
      std::lock_guard lock(notify_mu_);
      notifications_.emplace_back(buf, static_cast<size_t>(n));
      notify_cv_.notify_all();
    }
  });
}

DaemonHarness::~DaemonHarness() {
  if (pid_ > 0) Kill9();
  {
    std::lock_guard lock(notify_mu_);
    stop_reader_ = true;
  }
  notify_reader_.join();
}

::testing::AssertionResult DaemonHarness::Start(const std::vector<std::string>& extra, SpawnOptions spawn) {
  std::vector<std::string> argv = {MinerudPath(), "--state-dir", state_dir_};
  bool has_socket = false, has_workers = false;
  for (const auto& a : extra) {
    has_socket |= a == "--socket";
    has_workers |= a == "--workers";
  }
  if (!has_socket && spawn.pass_fd_as_3 < 0) argv.insert(argv.end(), {"--socket", socket_path_});
  if (!has_workers) argv.insert(argv.end(), {"--workers", "2"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  spawn.env["NOTIFY_SOCKET"] = notify_path_;
  {
    std::lock_guard lock(notify_mu_);
    notifications_.clear();
  }
  pid_ = Spawn(argv, spawn, "", log_path_);
  if (!WaitNotify("READY=1", 20'000)) {
    return ::testing::AssertionFailure() << "minerud did not send READY=1; log:\n" << Log();
  }
  return ::testing::AssertionSuccess();
}

bool DaemonHarness::WaitNotify(const std::string& text, int timeout_ms) {
  Deadline deadline = Deadline::InMillis(timeout_ms);
  std::unique_lock lock(notify_mu_);
  for (;;) {
    for (auto it = notifications_.begin(); it != notifications_.end(); ++it) {
      if (it->find(text) != std::string::npos) {
        notifications_.erase(notifications_.begin(), it + 1);
        return true;
      }
    }
    if (deadline.Expired()) return false;
    notify_cv_.wait_for(lock, std::chrono::milliseconds(100));
    // The daemon died: no point waiting.
    if (pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
  }
}

int DaemonHarness::Stop(int sig, int timeout_ms) {
  if (pid_ <= 0) return -1;
  ::kill(pid_, sig);
  int code = WaitExit(pid_, timeout_ms);
  if (code == -1) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
  return code;
}

void DaemonHarness::Kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

RunResult DaemonHarness::Ctl(const std::vector<std::string>& args, const SpawnOptions& spawn,
                             int timeout_ms) const {
  std::vector<std::string> argv = {ctl_path_, "--socket", socket_path_};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv, spawn, timeout_ms);
}

}  // namespace mineru::testing
