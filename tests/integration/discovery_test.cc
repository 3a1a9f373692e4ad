// How clients find the daemon, with the real binaries and real sockets: the client configuration file,
// the user's own socket, the system socket reached by a second uid in the socket's group with nothing
// set, and an error that names every place tried. Also `mineructl info` / `daemon-status` (InfoRequest).
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/unique_fd.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/second_user.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kTestUser[] = "minerud-itest";
constexpr char kSystemSocket[] = "/run/minerud/minerud.sock";

void WriteText(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// An environment with no socket named anywhere: no $MINERU_SOCKET, an empty config folder, and a
// runtime folder where no daemon of the user's own listens.
SpawnOptions Unconfigured(const std::string& home) {
  SpawnOptions s;
  fs::create_directories(home + "/runtime");
  fs::create_directories(home + "/config");
  s.env = {{"MINERU_SOCKET", ""},
           {"HOME", home},
           {"XDG_CONFIG_HOME", home + "/config"},
           {"XDG_RUNTIME_DIR", home + "/runtime"}};
  return s;
}

class DiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override { ::chmod(tmp_.path().c_str(), 0755); }
  TempDir tmp_;
};

TEST_F(DiscoveryTest, ClientConfFileNamesTheSocket) {
  DaemonHarness daemon(tmp_.path());
  ASSERT_TRUE(daemon.Start());
  const std::string home = tmp_.path() + "/home";
  SpawnOptions env = Unconfigured(home);
  WriteText(home + "/config/minerud/client.conf",
            "# where my daemon is\nsocket = " + daemon.socket_path() + "\n");
  RunResult r = RunProgram({MineructlPath(), "--json", "daemon-status"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["socket"], daemon.socket_path());

  // A broken file is an error that names it.
  WriteText(home + "/config/minerud/client.conf", "sockett = /x\n");
  r = RunProgram({MineructlPath(), "daemon-status"}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(home + "/config/minerud/client.conf"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sockett"), std::string::npos) << r.err;
}

TEST_F(DiscoveryTest, OwnDaemonInTheRuntimeFolderIsFoundWithNothingSet) {
  const std::string home = tmp_.path() + "/home";
  SpawnOptions env = Unconfigured(home);
  std::string ctl = MineructlPath();
  if (::geteuid() == 0) {
    // Root's own daemon is the system daemon: the user's runtime folder is tried by another uid.
    Result<SecondUser> other = SecondUser::Create(tmp_.path());
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    env.uid = other->uid();
    env.gid = other->gid();
    ASSERT_EQ(::chown((home + "/runtime").c_str(), other->uid(), other->gid()), 0);
    ctl = other->ctl();
  }
  DaemonHarness daemon(tmp_.path());
  ASSERT_TRUE(daemon.Start({"--socket", home + "/runtime/minerud.sock", "--set", "socket_mode=0666"}));
  RunResult r = RunProgram({ctl, "--json", "daemon-status"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["socket"], home + "/runtime/minerud.sock");
}

TEST_F(DiscoveryTest, NothingListeningNamesEveryPlaceTried) {
  if (fs::exists(kSystemSocket)) GTEST_SKIP() << kSystemSocket << " exists on this machine";
  const std::string home = tmp_.path() + "/home";
  RunResult r = RunProgram({MineructlPath(), "list"}, Unconfigured(home));
  EXPECT_EQ(r.exit_code, 69) << r.err;
  if (::geteuid() != 0) {
    EXPECT_NE(r.err.find(home + "/runtime/minerud.sock (your own daemon)"), std::string::npos) << r.err;
  }
  EXPECT_NE(r.err.find(std::string(kSystemSocket) + " (the system daemon)"), std::string::npos) << r.err;
  // A path given explicitly is the only one tried.
  r = RunProgram({MineructlPath(), "--socket", home + "/nope.sock", "list"}, Unconfigured(home));
  EXPECT_EQ(r.exit_code, 69);
  EXPECT_NE(r.err.find(home + "/nope.sock (--socket): no such socket"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kSystemSocket), std::string::npos) << r.err;
}

// The promise of the system service: a user in the socket's group, with no variable and no file set,
// reaches the system daemon; a user outside the group is told which group to join.
TEST_F(DiscoveryTest, SecondUidInTheSocketsGroupReachesTheSystemDaemon) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to listen on " << kSystemSocket << " and switch users";
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::string sample = SamplePdf(shared);
  if (sample.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
  // One test at a time owns the system socket's place on this machine.
  UniqueFd lock(::open("/run/minerud-itest.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  ASSERT_TRUE(lock);
  ASSERT_EQ(::flock(lock.get(), LOCK_EX), 0);
  if (fs::exists(kSystemSocket)) GTEST_SKIP() << "a system minerud owns " << kSystemSocket;
  const bool made_run_dir = !fs::exists("/run/minerud");
  fs::create_directories("/run/minerud");
  ::chmod("/run/minerud", 0755);

  Result<SecondUser> other = SecondUser::Create(tmp_.path());
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  const uid_t uid = other->uid();
  const gid_t gid = other->gid();
  const std::string ctl = other->ctl();
  const std::string home = tmp_.path() + "/home";
  SpawnOptions member = Unconfigured(home);
  member.uid = uid;
  member.gid = gid;
  ASSERT_EQ(::chown(home.c_str(), uid, gid), 0);
  ASSERT_EQ(::chown((home + "/runtime").c_str(), uid, gid), 0);
  const std::string in = home + "/in.pdf";
  fs::copy_file(sample, in);
  ::chmod(in.c_str(), 0644);

  DaemonHarness daemon(tmp_.path());
  ASSERT_TRUE(daemon.Start({"--socket", kSystemSocket, "--set", "socket_mode=0660"}));
  // The socket's group is the member's group (the package makes it `minerud`).
  ASSERT_EQ(::chown(kSystemSocket, 0, gid), 0);

  RunResult status = RunProgram({ctl, "--json", "daemon-status"}, member);
  EXPECT_EQ(status.exit_code, 0) << status.err;
  if (status.exit_code == 0) {
    json j = json::parse(status.out);
    EXPECT_EQ(j["socket"], kSystemSocket);
    EXPECT_EQ(j["peer_uid"], uid);
  }
  RunResult submit = RunProgram({ctl, "-q", "submit", in, "-o", home + "/out"}, member);
  EXPECT_EQ(submit.exit_code, 0) << submit.err;
  EXPECT_TRUE(fs::exists(home + "/out/in.md"));

  // Outside the group: permission denied, with the group to join.
  SpawnOptions outsider = member;
  outsider.gid = 65534;
  RunResult denied = RunProgram({ctl, "list"}, outsider);
  EXPECT_EQ(denied.exit_code, 77) << denied.err;
  EXPECT_NE(denied.err.find(std::string(kSystemSocket) + " (the system daemon): permission denied"),
            std::string::npos)
      << denied.err;
  group* g = ::getgrgid(gid);
  ASSERT_NE(g, nullptr);
  EXPECT_NE(denied.err.find("usermod -aG " + std::string(g->gr_name) + " " + kTestUser), std::string::npos)
      << denied.err;

  EXPECT_EQ(daemon.Stop(), 0);
  ::unlink(kSystemSocket);
  if (made_run_dir) ::rmdir("/run/minerud");
}

TEST_F(DiscoveryTest, InfoNamesVersionBackendAndLimits) {
  DaemonHarness daemon(tmp_.path());
  ASSERT_TRUE(daemon.Start({"--set", "max_document_size=64M", "--set", "max_jobs_per_user=7"}));
  RunResult r = daemon.Ctl({"--json", "info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["pid"], daemon.pid());
  EXPECT_EQ(j["backend"], "text");
  EXPECT_EQ(j["model_dir"], "");
  EXPECT_EQ(j["vram_budget_bytes"], 0);
  EXPECT_EQ(j["workers"], 2);
  EXPECT_EQ(j["max_document_bytes"], 64ull << 20);
  EXPECT_EQ(j["max_jobs_per_user"], 7);
  EXPECT_EQ(j["socket"], daemon.socket_path());
  RunResult version = RunProgram({MinerudPath(), "--version"});
  EXPECT_EQ(version.out, "minerud " + j["daemon_version"].get<std::string>() + "\n");

  RunResult text = daemon.Ctl({"info"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("backend                text"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("max_document_size      64M"), std::string::npos) << text.out;
  RunResult st = daemon.Ctl({"daemon-status"});
  EXPECT_NE(st.out.find("backend text (no model)"), std::string::npos) << st.out;
}

}  // namespace
}  // namespace mineru::testing
