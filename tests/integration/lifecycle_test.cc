// minerud's lifecycle with the real binaries: kill -9 and restart, SIGTERM drain, SIGHUP with a
// broken config, socket activation, a full state directory.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<json> JsonLines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(json::parse(line, nullptr, false));
  }
  return lines;
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    sample_ = SamplePdf(shared);
    multi_ = (shared / "corpus/docling/pdf/multi_page.pdf").string();
    if (sample_.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    daemon_.emplace(tmp_.path());
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::string sample_;
  std::string multi_;
};

TEST_F(LifecycleTest, Kill9DuringJobsThenRestartCompletesEachOnceWithIdenticalResults) {
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    RunResult r = daemon_->Ctl({"submit", "--detach", i == 1 ? multi_ : sample_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ids.push_back(FirstLine(r.out));
  }
  daemon_->Kill9();  // one job running (or just done), the others queued: all were accepted
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  RunResult wait = daemon_->Ctl({"wait", ids[0], ids[1], ids[2]});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << daemon_->Log();
  // Each job exactly once, all done.
  auto list = JsonLines(daemon_->Ctl({"--json", "list"}).out);
  ASSERT_EQ(list.size(), 3u);
  for (const json& j : list) EXPECT_EQ(j["state"], "done");
  // A fresh run of the same document gives the same bytes.
  RunResult fresh = daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/fresh"});
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err << daemon_->Log();
  for (const std::string& id : {ids[0], ids[2]}) {
    std::string out = tmp_.path() + "/job" + id;
    ASSERT_EQ(daemon_->Ctl({"fetch", id, "-o", out}).exit_code, 0);
    for (const char* f :
         {"normal_4pages.md", "normal_4pages_content_list.json", "normal_4pages_middle.json"}) {
      std::string recovered = ReadFile(out + "/" + f);
      EXPECT_FALSE(recovered.empty());
      EXPECT_EQ(recovered, ReadFile(tmp_.path() + "/fresh/" + f)) << "job " << id << " " << f;
    }
  }
  // Ids are never reused after a restart.
  EXPECT_GT(std::stoull(FirstLine(daemon_->Ctl({"submit", "--detach", sample_}).out)),
            std::stoull(ids[2]) + 1);
}

TEST_F(LifecycleTest, SigtermStopsAcceptingDrainsAndExitsZero) {
  ASSERT_TRUE(daemon_->Start({"--workers", "1", "--drain-timeout", "60s"}));
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    RunResult r = daemon_->Ctl({"submit", "--detach", sample_});
    ASSERT_EQ(r.exit_code, 0);
    ids.push_back(FirstLine(r.out));
  }
  pid_t pid = daemon_->pid();
  ::kill(pid, SIGTERM);
  EXPECT_TRUE(daemon_->WaitNotify("STOPPING=1"));
  EXPECT_EQ(daemon_->Stop(0, 60'000), 0) << daemon_->Log();
  EXPECT_FALSE(fs::exists(daemon_->socket_path())) << "the socket file is removed at stop";
  EXPECT_NE(daemon_->Log().find("drained"), std::string::npos);
  // Whatever was still queued runs after the next start; nothing is lost.
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  RunResult wait = daemon_->Ctl({"wait", ids[0], ids[1]});
  EXPECT_EQ(wait.exit_code, 0) << wait.err;
}

TEST_F(LifecycleTest, DrainTimeoutInterruptsRunningJobWhichRunsAgainAfterRestart) {
  ASSERT_TRUE(daemon_->Start({"--workers", "1", "--drain-timeout", "0"}));
  std::string id = FirstLine(daemon_->Ctl({"submit", "--detach", multi_}).out);
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(daemon_->Stop(SIGTERM, 30'000), 0) << daemon_->Log();
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  RunResult wait = daemon_->Ctl({"--json", "wait", id});
  ASSERT_EQ(wait.exit_code, 0) << wait.out << wait.err << daemon_->Log();
  EXPECT_EQ(JsonLines(wait.out).back()["state"], "done");
}

TEST_F(LifecycleTest, WatchdogPingsWhileWorkersAreAliveAndStatusIsPublished) {
  SpawnOptions spawn;
  spawn.env["WATCHDOG_USEC"] = "3000000";  // pings due every 3 s; minerud pings at most every second
  ASSERT_TRUE(daemon_->Start({}, spawn));
  EXPECT_TRUE(daemon_->WaitNotify("STATUS="));
  EXPECT_TRUE(daemon_->WaitNotify("WATCHDOG=1", 5000));
  EXPECT_TRUE(daemon_->WaitNotify("WATCHDOG=1", 5000));
  EXPECT_EQ(daemon_->Stop(), 0);
}

TEST_F(LifecycleTest, SighupWithBrokenConfigKeepsTheOldOneAndAGoodOneApplies) {
  std::string conf = tmp_.path() + "/minerud.conf";
  std::ofstream(conf) << "max_document_size = 100M\n";
  ASSERT_TRUE(daemon_->Start({"--config", conf}));
  std::ofstream(conf, std::ios::trunc) << "max_document_size = banana\n";
  ::kill(daemon_->pid(), SIGHUP);
  EXPECT_TRUE(daemon_->WaitNotify("RELOADING=1"));
  EXPECT_TRUE(daemon_->WaitNotify("READY=1"));
  EXPECT_NE(daemon_->Log().find("reload failed"), std::string::npos) << daemon_->Log();
  RunResult still = daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/a"});
  EXPECT_EQ(still.exit_code, 0) << still.err;
  // A valid config with a 1 KiB cap: the same document is now refused as bad input.
  std::ofstream(conf, std::ios::trunc) << "max_document_size = 1K\n";
  ::kill(daemon_->pid(), SIGHUP);
  EXPECT_TRUE(daemon_->WaitNotify("RELOADING=1"));
  EXPECT_TRUE(daemon_->WaitNotify("READY=1"));
  RunResult refused = daemon_->Ctl({"submit", sample_, "-o", tmp_.path() + "/b"});
  EXPECT_EQ(refused.exit_code, 65) << refused.err;
  EXPECT_EQ(daemon_->Stop(), 0);
}

TEST_F(LifecycleTest, SocketActivationWithListenFds) {
  std::string path = tmp_.path() + "/activated.sock";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 16), 0);
  SpawnOptions spawn;
  spawn.pass_fd_as_3 = fd;
  spawn.set_listen_pid = true;
  ASSERT_TRUE(daemon_->Start({}, spawn));
  ::close(fd);
  RunResult r =
      RunProgram({MineructlPath(), "--socket", path, "-q", "submit", sample_, "-o", tmp_.path() + "/out"});
  EXPECT_EQ(r.exit_code, 0) << r.err << daemon_->Log();
  EXPECT_TRUE(fs::exists(tmp_.path() + "/out/normal_4pages.md"));
  EXPECT_FALSE(fs::exists(daemon_->socket_path())) << "no socket of its own when one is handed over";
  EXPECT_NE(daemon_->Log().find("socket activation"), std::string::npos);
  EXPECT_EQ(daemon_->Stop(), 0);
  EXPECT_TRUE(fs::exists(path)) << "an activated socket belongs to the service manager";
}

TEST_F(LifecycleTest, FullStateDirectoryRejectsNewJobsAndLosesNone) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  std::string mnt = tmp_.path() + "/small";
  fs::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=3m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(errno) << "); skipping the full-disk test";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{mnt};
  daemon_->set_state_dir(mnt + "/state");
  ASSERT_TRUE(daemon_->Start());
  std::string first = FirstLine(daemon_->Ctl({"submit", "--detach", sample_}).out);
  ASSERT_EQ(daemon_->Ctl({"wait", first}).exit_code, 0);
  // Fill the file system.
  {
    std::ofstream filler(mnt + "/filler", std::ios::binary);
    std::string block(64 * 1024, 'x');
    while (filler.write(block.data(), block.size())) {
    }
  }
  RunResult full = daemon_->Ctl({"submit", sample_, "-o", tmp_.path() + "/x"});
  // Refused for now, not for good: busy (75), retry when there is room.
  EXPECT_EQ(full.exit_code, 75) << full.err;
  EXPECT_NE(full.err.find("state directory is full"), std::string::npos) << full.err;
  // The accepted job is intact and its results can be fetched.
  RunResult fetch = daemon_->Ctl({"fetch", first, "-o", tmp_.path() + "/first"});
  EXPECT_EQ(fetch.exit_code, 0) << fetch.err;
  EXPECT_FALSE(ReadFile(tmp_.path() + "/first/normal_4pages.md").empty());
  // Room again: new jobs are accepted.
  fs::remove(mnt + "/filler");
  RunResult again = daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/again"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(daemon_->Stop(), 0);
}

}  // namespace
}  // namespace mineru::testing
