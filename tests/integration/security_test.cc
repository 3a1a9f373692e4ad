// Isolation and robustness with the real binaries: a second uid sees nothing of the first one's
// jobs; 10,000 connect/close cycles leak no fd; a client that never reads stalls nobody.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <thread>

#include "common/clock.h"
#include "shm/channel.h"
#include "shm/document_buffer.h"
#include "shm/frame.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/second_user.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// The daemon's open fds when nothing transient is open: sd_notify and the spool open fds briefly, so
// the smallest of several samples.
int SettledFdCount(pid_t pid) {
  int least = CountFds(pid);
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    least = std::min(least, CountFds(pid));
  }
  return least;
}

// Waits until the daemon's fd count is back to `baseline` (or below); returns the last count.
int WaitForFdCount(pid_t pid, int baseline) {
  Deadline deadline = Deadline::InMillis(20'000);
  int now = CountFds(pid);
  while (now > baseline && !deadline.Expired()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    now = CountFds(pid);
  }
  return now;
}

int ConnectTo(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

class SecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    std::string sample = SamplePdf(shared);
    if (sample.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    ::chmod(tmp_.path().c_str(), 0755);
    sample_ = tmp_.path() + "/sample.pdf";
    fs::copy_file(sample, sample_);
    ::chmod(sample_.c_str(), 0644);
    daemon_.emplace(tmp_.path());
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::string sample_;
};

TEST_F(SecurityTest, SecondUidCannotSeeOrTouchAnotherUsersJobs) {
  Result<SecondUser> other = SecondUser::Create(tmp_.path());
  if (!other.ok() && other.status().code() == StatusCode::kPermissionDenied) {
    GTEST_SKIP() << other.status().ToString();
  }
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  const SpawnOptions& as_user = other->spawn();
  const std::string& user_dir = other->home();
  daemon_->set_ctl_path(other->ctl());

  ASSERT_TRUE(daemon_->Start({"--set", "socket_mode=0666"}));
  std::string root_job = FirstLine(daemon_->Ctl({"submit", "--detach", sample_}).out);
  ASSERT_FALSE(root_job.empty());
  ASSERT_EQ(daemon_->Ctl({"wait", root_job}).exit_code, 0);

  // The other user gets the same answer as for an id that never existed.
  RunResult status = daemon_->Ctl({"status", root_job}, as_user);
  EXPECT_EQ(status.exit_code, 65);
  EXPECT_EQ(status.err, "mineructl: no job " + root_job + "\n");
  RunResult never = daemon_->Ctl({"status", "987654"}, as_user);
  EXPECT_EQ(never.err, "mineructl: no job 987654\n");
  // Nor can it follow the job's events.
  RunResult wait = daemon_->Ctl({"wait", root_job}, as_user);
  EXPECT_EQ(wait.exit_code, 65);
  EXPECT_EQ(wait.err, "mineructl: no job " + root_job + "\n");
  EXPECT_EQ(daemon_->Ctl({"cancel", root_job}, as_user).exit_code, 65);
  EXPECT_EQ(daemon_->Ctl({"fetch", root_job, "-o", user_dir + "/stolen"}, as_user).exit_code, 65);
  EXPECT_FALSE(fs::exists(user_dir + "/stolen"));
  RunResult list = daemon_->Ctl({"--json", "list"}, as_user);
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_TRUE(list.out.empty()) << list.out;
  EXPECT_EQ(daemon_->Ctl({"list", "--all"}, as_user).exit_code, 77);
  RunResult budget = daemon_->Ctl({"budget", "1G"}, as_user);
  EXPECT_EQ(budget.exit_code, 77) << budget.err;
  EXPECT_NE(budget.err.find("only root and the admin group"), std::string::npos) << budget.err;
  RunResult who = daemon_->Ctl({"--json", "daemon-status"}, as_user);
  EXPECT_NE(who.out.find("\"peer_uid\":" + std::to_string(other->uid())), std::string::npos) << who.out;

  // Its own job works, and root (an admin) sees both.
  RunResult own = daemon_->Ctl({"-q", "submit", other->Readable(sample_), "-o", user_dir + "/out"}, as_user);
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_TRUE(fs::exists(user_dir + "/out/sample.md"));
  RunResult all = daemon_->Ctl({"--json", "list", "--all"});
  EXPECT_NE(all.out.find("\"owner_uid\":" + std::to_string(other->uid())), std::string::npos) << all.out;
  // The root job is untouched.
  EXPECT_EQ(daemon_->Ctl({"fetch", root_job, "-o", tmp_.path() + "/mine"}).exit_code, 0);
}

TEST_F(SecurityTest, TenThousandConnectCloseCyclesLeakNoFd) {
  ASSERT_TRUE(daemon_->Start());
  ASSERT_EQ(daemon_->Ctl({"daemon-status"}).exit_code, 0);  // warm up
  int baseline = SettledFdCount(daemon_->pid());
  std::vector<uint8_t> hello = shm::EncodeFrame(shm::Hello{}, 0);
  for (int i = 0; i < 10'000; ++i) {
    int fd = ConnectTo(daemon_->socket_path());
    ASSERT_GE(fd, 0) << "connect " << i;
    if (i % 10 == 1) {
      ::send(fd, hello.data(), hello.size(), MSG_NOSIGNAL);  // a full Hello, reply never read
    } else if (i % 10 == 2) {
      ::send(fd, hello.data(), hello.size() / 2, MSG_NOSIGNAL);  // killed mid-frame
    }
    ::close(fd);
  }
  // The daemon closes its ends as it sees the hang-ups.
  int now = WaitForFdCount(daemon_->pid(), baseline);
  EXPECT_LE(now, baseline) << "fds leaked";
  EXPECT_EQ(daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/out"}).exit_code, 0);
  EXPECT_EQ(daemon_->Stop(), 0);
}

TEST_F(SecurityTest, ClientThatNeverReadsDoesNotStallOthers) {
  ASSERT_TRUE(daemon_->Start());
  int slow = ConnectTo(daemon_->socket_path());
  ASSERT_GE(slow, 0);
  std::vector<uint8_t> hello = shm::EncodeFrame(shm::Hello{}, 0);
  ASSERT_EQ(::send(slow, hello.data(), hello.size(), MSG_NOSIGNAL), static_cast<ssize_t>(hello.size()));
  // Pings with big padding whose Pongs are never read.
  std::atomic<bool> stop{false};
  std::atomic<int> sent{0};
  std::thread flood([&] {
    shm::Ping ping;
    ping.padding.assign(60'000, 'p');
    std::vector<uint8_t> frame = shm::EncodeFrame(ping, 0);
    while (!stop && sent < 2000) {
      if (::send(slow, frame.data(), frame.size(), MSG_NOSIGNAL) < 0) break;  // the daemon dropped us
      ++sent;
    }
  });
  RunResult other = daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/out"}, {}, 60'000);
  stop = true;
  ::shutdown(slow, SHUT_RDWR);
  flood.join();
  ::close(slow);
  EXPECT_EQ(other.exit_code, 0) << other.err;
  EXPECT_GT(sent.load(), 0);
  EXPECT_EQ(daemon_->Ctl({"daemon-status"}).exit_code, 0);
}

}  // namespace
}  // namespace mineru::testing

namespace mineru::testing {
namespace {

// Hostile or broken frames fail that request (or that connection) with an error; the daemon keeps
// serving everyone else.
class HostileFrameTest : public SecurityTest {
 protected:
  shm::Channel Connect() {
    auto c = shm::Channel::Connect(daemon_->socket_path());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return std::move(*c);
  }
  shm::Channel ConnectWithHello() {
    shm::Channel c = Connect();
    EXPECT_TRUE(c.Send(shm::Hello{}).ok());
    auto reply = c.Receive(Deadline::InMillis(5000));
    EXPECT_TRUE(reply.ok() && std::holds_alternative<shm::HelloReply>(reply->message));
    return c;
  }
  // The next message is an ErrorReply; returns its code.
  StatusCode ExpectError(shm::Channel& c) {
    auto m = c.Receive(Deadline::InMillis(5000));
    if (!m.ok()) return m.status().code();
    auto* e = std::get_if<shm::ErrorReply>(&m->message);
    EXPECT_NE(e, nullptr) << shm::MessageTypeName(shm::TypeOf(m->message));
    return e ? e->code : StatusCode::kOk;
  }
  void ExpectStillServing() {
    EXPECT_EQ(daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/ok"}).exit_code, 0);
  }
};

TEST_F(HostileFrameTest, SubmitWithWrongKindsOfFdIsRefusedPerRequest) {
  ASSERT_TRUE(daemon_->Start());
  shm::Channel c = ConnectWithHello();
  std::string pdf = ReadFile(sample_);
  shm::SubmitRequest req;
  req.request_id = 1;
  req.document_name = "x";
  req.document_bytes = pdf.size();
  // An unsealed memfd (could be shrunk under the daemon's mapping).
  auto memfd = shm::CreateMemfd("unsealed");
  ASSERT_TRUE(memfd.ok());
  ASSERT_EQ(::write(memfd->get(), pdf.data(), pdf.size()), static_cast<ssize_t>(pdf.size()));
  int fds1[1] = {memfd->get()};
  ASSERT_TRUE(c.Send(req, fds1).ok());
  EXPECT_EQ(ExpectError(c), StatusCode::kInvalidArgument);
  // A regular file.
  UniqueFd file(::open(sample_.c_str(), O_RDONLY | O_CLOEXEC));
  int fds2[1] = {file.get()};
  req.request_id = 2;
  ASSERT_TRUE(c.Send(req, fds2).ok());
  EXPECT_EQ(ExpectError(c), StatusCode::kInvalidArgument);
  // A pipe.
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  int fds3[1] = {p[0]};
  req.request_id = 3;
  ASSERT_TRUE(c.Send(req, fds3).ok());
  EXPECT_EQ(ExpectError(c), StatusCode::kInvalidArgument);
  ::close(p[0]);
  ::close(p[1]);
  // The connection still works after refused requests.
  ASSERT_TRUE(c.Send(shm::Ping{7, ""}).ok());
  auto pong = c.Receive(Deadline::InMillis(5000));
  ASSERT_TRUE(pong.ok());
  EXPECT_TRUE(std::holds_alternative<shm::Pong>(pong->message));
  ExpectStillServing();
}

TEST_F(HostileFrameTest, BrokenFramesCloseOnlyThatConnection) {
  ASSERT_TRUE(daemon_->Start());
  int baseline = SettledFdCount(daemon_->pid());
  {
    // A request before Hello.
    shm::Channel c = Connect();
    ASSERT_TRUE(c.Send(shm::StatusRequest{1, 1}).ok());
    EXPECT_EQ(ExpectError(c), StatusCode::kFailedPrecondition);
  }
  {
    // A frame from another protocol version.
    std::vector<uint8_t> frame = shm::EncodeFrame(shm::Hello{}, 0);
    frame[4] = 99;
    int fd = ConnectTo(daemon_->socket_path());
    ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
    auto c = shm::Channel::FromFd(UniqueFd(fd));
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(ExpectError(*c), StatusCode::kUnimplemented);
    EXPECT_EQ(c->Receive(Deadline::InMillis(5000)).status().code(), StatusCode::kUnavailable)
        << "then closed";
  }
  {
    // Garbage, and a header announcing a huge payload.
    int fd = ConnectTo(daemon_->socket_path());
    std::vector<uint8_t> frame = shm::EncodeFrame(shm::Hello{}, 0);
    uint64_t huge = 1ull << 40;
    std::memcpy(frame.data() + 16, &huge, sizeof huge);
    ASSERT_GT(::send(fd, frame.data(), 24, MSG_NOSIGNAL), 0);
    auto c = shm::Channel::FromFd(UniqueFd(fd));
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(ExpectError(*c), StatusCode::kResourceExhausted);
  }
  {
    // Many fds with a Hello (an fd flood): refused, and every fd closed by the daemon.
    int fd = ConnectTo(daemon_->socket_path());
    std::vector<int> many;
    for (int i = 0; i < 64; ++i) many.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    auto c = shm::Channel::FromFd(UniqueFd(fd));
    ASSERT_TRUE(c.ok());
    (void)c->Send(shm::Hello{}, many);
    for (int f : many) ::close(f);
    auto m = c->Receive(Deadline::InMillis(5000));
    EXPECT_TRUE(!m.ok() || std::holds_alternative<shm::ErrorReply>(m->message));
  }
  EXPECT_LE(WaitForFdCount(daemon_->pid(), baseline), baseline) << "no fd of a refused frame stays open";
  ExpectStillServing();
}

}  // namespace
}  // namespace mineru::testing
