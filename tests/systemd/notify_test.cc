// The contract minerud.service relies on, checked against the real daemon: Type=notify with
// NotifyAccess=main and WatchdogSec=. The test plays the service manager: it binds a datagram socket
// with SO_PASSCRED, starts minerud with NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID, and reads what
// arrives, with the sender's pid as the kernel reports it.
//  - READY=1 comes only once the socket accepts connections;
//  - STATUS= lines and WATCHDOG=1 pings follow, pings well within the interval;
//  - SIGHUP (ExecReload=) gives RELOADING=1 and then READY=1 again;
//  - SIGTERM gives STOPPING=1 and exit status 0;
//  - every message comes from the main process (NotifyAccess=main drops the others).
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kWatchdogUsec = 6'000'000;

struct Message {
  std::string text;
  pid_t sender = 0;
  Clock::time_point at;
};

class NotifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/minerud-notify-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    notify_fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(notify_fd_, 0);
    sockaddr_un addr = Address(dir_ / "notify");
    ASSERT_EQ(::bind(notify_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
    int one = 1;
    ASSERT_EQ(::setsockopt(notify_fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one), 0);
  }

  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (notify_fd_ >= 0) ::close(notify_fd_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static sockaddr_un Address(const std::filesystem::path& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    return addr;
  }

  // Starts minerud as the service would be: its own socket and state folders, the manager's
  // variables in the environment (WATCHDOG_PID is the daemon's own pid, as systemd sets it).
  void Start() {
    std::string notify = (dir_ / "notify").string();
    std::string socket = (dir_ / "minerud.sock").string();
    std::string state = (dir_ / "state").string();
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::setenv("NOTIFY_SOCKET", notify.c_str(), 1);
      ::setenv("WATCHDOG_USEC", std::to_string(kWatchdogUsec).c_str(), 1);
      ::setenv("WATCHDOG_PID", std::to_string(::getpid()).c_str(), 1);
      const char* argv[] = {MINERUD_PATH,   "--config",    "/dev/null",   "--socket",
                            socket.c_str(), "--state-dir", state.c_str(), nullptr};
      ::execv(MINERUD_PATH, const_cast<char* const*>(argv));
      ::_exit(127);
    }
  }

  // Receives one notification, or returns false after `timeout_ms`.
  bool Receive(int timeout_ms, Message* out) {
    pollfd p{notify_fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) return false;
    char buffer[4096];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buffer, sizeof buffer};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(notify_fd_, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0) return false;
    out->text.assign(buffer, static_cast<size_t>(n));
    out->sender = 0;
    out->at = Clock::now();
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred;
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        out->sender = cred.pid;
      }
    }
    received_.push_back(*out);
    return true;
  }

  // Waits for a message holding the line `line` (messages may carry several lines).
  bool WaitFor(const std::string& line, int timeout_ms) {
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    Message m;
    while (Clock::now() < deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (!Receive(static_cast<int>(std::max<int64_t>(left, 1)), &m)) return false;
      if (("\n" + m.text + "\n").find("\n" + line + "\n") != std::string::npos) return true;
      if (line.back() == '=' && ("\n" + m.text).find("\n" + line) != std::string::npos) return true;
    }
    return false;
  }

  bool Connects() const {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr = Address(dir_ / "minerud.sock");
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
  }

  std::string Received() const {
    std::string all;
    for (const Message& m : received_) all += "[" + std::to_string(m.sender) + "] " + m.text + "\n";
    return all;
  }

  std::filesystem::path dir_;
  int notify_fd_ = -1;
  pid_t pid_ = -1;
  std::vector<Message> received_;
};

TEST_F(NotifyTest, SpeaksTypeNotifyFromTheMainProcess) {
  Start();
  ASSERT_TRUE(WaitFor("READY=1", 30'000)) << "no READY=1; got:\n" << Received();
  EXPECT_TRUE(Connects()) << "READY=1 came before the socket accepted connections";

  // Watchdog pings at least twice as often as the interval, and STATUS= is reported.
  ASSERT_TRUE(WaitFor("WATCHDOG=1", kWatchdogUsec / 1000)) << "no watchdog ping; got:\n" << Received();
  auto first_ping = received_.back().at;
  ASSERT_TRUE(WaitFor("WATCHDOG=1", kWatchdogUsec / 1000)) << "no second ping; got:\n" << Received();
  auto gap = std::chrono::duration_cast<std::chrono::microseconds>(received_.back().at - first_ping).count();
  EXPECT_LE(gap, kWatchdogUsec / 2) << "pings " << gap << " us apart for a " << kWatchdogUsec
                                    << " us watchdog";
  bool has_status = false;
  for (const Message& m : received_) has_status |= ("\n" + m.text).find("\nSTATUS=") != std::string::npos;
  if (!has_status) {
    EXPECT_TRUE(WaitFor("STATUS=", 5'000)) << "no STATUS= line; got:\n" << Received();
  }

  // ExecReload= sends SIGHUP.
  ASSERT_EQ(::kill(pid_, SIGHUP), 0);
  EXPECT_TRUE(WaitFor("RELOADING=1", 10'000)) << "no RELOADING=1 after SIGHUP; got:\n" << Received();
  EXPECT_TRUE(WaitFor("READY=1", 10'000)) << "no READY=1 after the reload; got:\n" << Received();

  // systemctl stop sends SIGTERM.
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  EXPECT_TRUE(WaitFor("STOPPING=1", 10'000)) << "no STOPPING=1 after SIGTERM; got:\n" << Received();
  int status = 0;
  ASSERT_EQ(::waitpid(pid_, &status, 0), pid_);
  pid_t main_pid = pid_;
  pid_ = -1;
  ASSERT_TRUE(WIFEXITED(status)) << "minerud did not exit normally";
  EXPECT_EQ(WEXITSTATUS(status), 0);

  // NotifyAccess=main: systemd ignores messages from any other process.
  Message m;
  while (Receive(0, &m)) {
  }
  if (std::getenv("MINERU_TEST_VERBOSE") != nullptr) std::fputs(Received().c_str(), stderr);
  for (const Message& each : received_) {
    EXPECT_EQ(each.sender, main_pid) << "'" << each.text << "' came from pid " << each.sender
                                     << ", not the main process " << main_pid;
  }
}

}  // namespace
