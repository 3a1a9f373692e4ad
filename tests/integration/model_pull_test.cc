// `mineructl model pull` against a real HTTP server on 127.0.0.1 (tests/hub/hub_server.py, a
// Hugging Face-style hub) serving the golden tiny model folder: the pulled folder is the served one
// byte for byte and minerud opens it by name; an interrupted download (the connection dropped, or
// mineructl killed) resumes from where it stopped with a Range request; a corrupted byte is caught by
// the checksum; and at no point does a half-written model sit where minerud would look for it.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/tiny_vlm_model.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kRepo[] = "test-org/tiny-mineru";
constexpr char kName[] = "tiny-mineru";

// Reads one line from `fd` (non-blocking) within `timeout_ms`; "" on timeout or end of file.
std::string ReadLine(int fd, int timeout_ms) {
  std::string line;
  char c = 0;
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return "";
    const ssize_t n = ::read(fd, &c, 1);
    if (n == 0) return "";
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return "";
    }
    if (c == '\n') return line;
    line += c;
  }
}

// The hub server, its stdout on a FIFO the test reads (the port, then "paused" lines).
class HubServer {
 public:
  HubServer(const std::string& dir, const fs::path& root, std::vector<std::string> faults) {
    const std::string fifo = dir + "/hub.out";
    ::unlink(fifo.c_str());
    log_ = dir + "/hub.log";
    ::unlink(log_.c_str());
    if (::mkfifo(fifo.c_str(), 0600) != 0) return;
    out_.reset(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    std::vector<std::string> argv = {MINERU_PYTHON3, MINERU_HUB_SERVER, "--root", root.string(), "--repo",
                                     kRepo,          "--log",           log_,     "--page-size", "2"};
    argv.insert(argv.end(), faults.begin(), faults.end());
    pid_ = Spawn(argv, {}, fifo, dir + "/hub.err");
    const std::string port = ReadLine(out_.get(), 30'000);
    if (!port.empty()) endpoint_ = "http://127.0.0.1:" + port;
  }
  ~HubServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& endpoint() const { return endpoint_; }
  bool WaitPaused() { return ReadLine(out_.get(), 30'000) == "paused"; }
  // Every request so far: {"path": ..., "range": ...}.
  std::vector<json> Requests() const {
    std::vector<json> out;
    std::istringstream in(ReadFile(log_));
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

 private:
  pid_t pid_ = -1;
  UniqueFd out_;
  std::string log_;
  std::string endpoint_;
};

// Waits (inotify, no sleeping) until `path` holds at least `size_bytes`.
bool WaitForSize(const fs::path& path, uint64_t size_bytes, int timeout_ms) {
  UniqueFd in(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
  if (!in || ::inotify_add_watch(in.get(), path.c_str(), IN_MODIFY) < 0) return false;
  for (;;) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) >= size_bytes) return true;
    pollfd p{in.get(), POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char events[4096];
    while (::read(in.get(), events, sizeof events) > 0) {
    }
  }
}

std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class ModelPullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    source_ = fs::path(tmp_.path()) / "source";
    ASSERT_EQ(MakeTinyVlmModel(shared / "golden/vlm-untied-f32", source_), "");
    models_ = fs::path(tmp_.path()) / "models";
  }

  // mineructl --json model pull (for people, with progress on stderr, when `extra` starts with "--text").
  RunResult Pull(const HubServer& hub, std::vector<std::string> extra = {}) const {
    const bool text = !extra.empty() && extra[0] == "--text";
    if (text) extra.erase(extra.begin());
    std::vector<std::string> argv = {MineructlPath(), "model",        "pull",         kRepo,
                                     "--endpoint",    hub.endpoint(), "--models-dir", models_.string()};
    if (!text) argv.insert(argv.begin() + 1, "--json");
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunProgram(argv);
  }

  // Every served file (links followed) is in `dir` with the same bytes, and nothing else is.
  void ExpectSameFiles(const fs::path& dir) const {
    size_t count = 0;
    for (auto it = fs::recursive_directory_iterator(source_, fs::directory_options::follow_directory_symlink);
         it != fs::recursive_directory_iterator(); ++it) {
      if (!fs::is_regular_file(it->path())) continue;
      const fs::path rel = it->path().lexically_relative(source_);
      EXPECT_EQ(ReadFile((dir / rel).string()), ReadFile(it->path().string())) << rel;
      ++count;
    }
    size_t pulled = 0;
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
      pulled += fs::is_regular_file(it->path()) ? 1 : 0;
    }
    EXPECT_EQ(pulled, count);
    EXPECT_GE(count, 4u) << "config, checkpoint, tokenizer and the vision folder's config";
  }

  // What minerud makes of `model_dir = NAME` with this models folder.
  RunResult CheckConfig() const {
    return RunProgram({MinerudPath(), "--check-config", "--set", "models_dir=" + models_.string(), "--model",
                       kName, "--state-dir", tmp_.path() + "/state"});
  }

  // Nothing a daemon could take for a model: only the dot-named work in progress.
  void ExpectNoModelPublished() const {
    for (const std::string& name : Names(models_)) EXPECT_EQ(name[0], '.') << name;
    const RunResult check = CheckConfig();
    EXPECT_NE(check.exit_code, 0) << check.out;
    EXPECT_NE(check.out.find("model        ERROR: "), std::string::npos) << check.out;
  }

  uint64_t CheckpointSize() const { return fs::file_size(source_ / "model.safetensors"); }
  fs::path PartialCheckpoint() const {
    return models_ / (std::string(".pull-") + kName + ".partial") / "model.safetensors";
  }

  TempDir tmp_;
  fs::path source_;
  fs::path models_;
};

TEST_F(ModelPullTest, PullsEveryFileVerifiedAndMinerudOpensItByName) {
  HubServer hub(tmp_.path(), source_, {});
  ASSERT_FALSE(hub.endpoint().empty());
  const mode_t umask_before = ::umask(077);  // as a careful root's shell: the daemon's user must still read
  const RunResult r = Pull(hub);
  ::umask(umask_before);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["model_dir"], (models_ / kName).string());
  EXPECT_EQ(j["already_present"], false);
  EXPECT_EQ(j["downloaded_bytes"], j["total_bytes"]);
  EXPECT_EQ(j["resumed_bytes"], 0);
  ExpectSameFiles(models_ / kName);
  EXPECT_EQ(Names(models_), std::vector<std::string>{kName}) << "no work files left behind";
  for (const auto& e : fs::recursive_directory_iterator(models_ / kName)) {
    const fs::perms others =
        fs::perms::others_read | (e.is_directory() ? fs::perms::others_exec : fs::perms::none);
    EXPECT_EQ(e.status().permissions() & others, others) << e.path();
  }

  const RunResult check = CheckConfig();
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("model        MinerU 2.0 from " + (models_ / kName).string()), std::string::npos)
      << check.out;

  // Pulled already: nothing is asked of the hub.
  const size_t requests = hub.Requests().size();
  const RunResult again = Pull(hub);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["already_present"], true);
  EXPECT_EQ(hub.Requests().size(), requests);

  // --replace fetches it again; without --json each file is reported once it is verified.
  const RunResult replaced = Pull(hub, {"--text", "--replace"});
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  size_t verified = 0;
  for (size_t at = 0; (at = replaced.err.find(" verified\n", at)) != std::string::npos; ++at) ++verified;
  EXPECT_EQ(verified, j["files"].get<size_t>()) << replaced.err;
  ExpectSameFiles(models_ / kName);
  EXPECT_EQ(Names(models_), std::vector<std::string>{kName}) << "the replaced model is gone";

  const RunResult list = RunProgram({MineructlPath(), "model", "list", "--models-dir", models_.string()});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_EQ(list.out.rfind(std::string(kName) + "\t", 0), 0u) << list.out;
}

TEST_F(ModelPullTest, ADroppedConnectionResumesOnTheNextRunFromTheByteItStoppedAt) {
  const uint64_t cut = CheckpointSize() / 3;
  HubServer hub(tmp_.path(), source_, {"--drop-after", "model.safetensors:" + std::to_string(cut)});
  ASSERT_FALSE(hub.endpoint().empty());
  const RunResult first = Pull(hub, {"--retries", "0"});
  EXPECT_EQ(first.exit_code, 69) << first.out << first.err;
  EXPECT_NE(first.out.find("run the same command again to resume"), std::string::npos) << first.out;
  EXPECT_EQ(fs::file_size(PartialCheckpoint()), cut) << "what arrived is kept";
  ExpectNoModelPublished();
  uint64_t finished_bytes = 0;  // files the first run completed and verified
  for (const auto& e : fs::recursive_directory_iterator(models_ / (std::string(".pull-") + kName))) {
    if (e.is_regular_file()) finished_bytes += e.file_size();
  }
  EXPECT_GT(finished_bytes, 0u);

  const RunResult second = Pull(hub, {"--retries", "0"});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  const json j = json::parse(second.out);
  EXPECT_EQ(j["resumed_bytes"], cut);
  EXPECT_EQ(j["downloaded_bytes"].get<uint64_t>(), j["total_bytes"].get<uint64_t>() - cut - finished_bytes)
      << "neither the checkpoint's first part nor the files finished in the first run are fetched again";
  bool ranged = false;
  for (const json& req : hub.Requests()) {
    if (req["range"].is_string()) {
      EXPECT_EQ(req["range"], "bytes=" + std::to_string(cut) + "-") << req.dump();
      ranged = true;
    }
  }
  EXPECT_TRUE(ranged);
  ExpectSameFiles(models_ / kName);
}

TEST_F(ModelPullTest, AKilledPullResumesAndLeavesNoModelInPlace) {
  const uint64_t cut = CheckpointSize() / 2;
  HubServer hub(tmp_.path(), source_, {"--pause-after", "model.safetensors:" + std::to_string(cut)});
  ASSERT_FALSE(hub.endpoint().empty());
  const pid_t pid = Spawn({MineructlPath(), "-q", "model", "pull", kRepo, "--endpoint", hub.endpoint(),
                           "--models-dir", models_.string()},
                          {}, "", tmp_.path() + "/pull.err");
  ASSERT_TRUE(hub.WaitPaused());
  ASSERT_TRUE(WaitForSize(PartialCheckpoint(), cut, 30'000));
  ::kill(pid, SIGKILL);
  EXPECT_EQ(WaitExit(pid, 10'000), 128 + SIGKILL);
  ExpectNoModelPublished();

  const RunResult again = Pull(hub);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(json::parse(again.out)["resumed_bytes"], cut);
  ExpectSameFiles(models_ / kName);
}

TEST_F(ModelPullTest, ABrokenTransferIsRetriedWithinTheRunFromWhereItBroke) {
  const uint64_t cut = CheckpointSize() / 4;
  HubServer hub(tmp_.path(), source_, {"--drop-after", "model.safetensors:" + std::to_string(cut)});
  ASSERT_FALSE(hub.endpoint().empty());
  const RunResult r = Pull(hub, {"--retries", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out)["downloaded_bytes"], json::parse(r.out)["total_bytes"]) << "no byte twice";
  bool ranged = false;
  for (const json& req : hub.Requests())
    ranged = ranged || req["range"] == "bytes=" + std::to_string(cut) + "-";
  EXPECT_TRUE(ranged);
  ExpectSameFiles(models_ / kName);
}

TEST_F(ModelPullTest, AServerThatIgnoresRangesStillYieldsTheRightFiles) {
  HubServer hub(tmp_.path(), source_,
                {"--no-range", "--drop-after", "model.safetensors:" + std::to_string(CheckpointSize() / 2)});
  ASSERT_FALSE(hub.endpoint().empty());
  const RunResult r = Pull(hub, {"--retries", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ExpectSameFiles(models_ / kName);
}

TEST_F(ModelPullTest, ACorruptedByteIsCaughtAndNothingOfItIsKept) {
  for (const std::string file : {"model.safetensors", "config.json"}) {
    SCOPED_TRACE(file);
    fs::remove_all(models_);  // each from the start (a verified file is not fetched again)
    HubServer hub(tmp_.path(), source_, {"--corrupt", file + ":100"});
    ASSERT_FALSE(hub.endpoint().empty());
    const RunResult r = Pull(hub);
    EXPECT_EQ(r.exit_code, 65) << r.out << r.err;
    const json j = json::parse(r.out);
    EXPECT_NE(j["error"].get<std::string>().find(file + ": " +
                                                 (file == "config.json" ? "git-sha1" : "sha256") + " is "),
              std::string::npos)
        << j.dump();
    ExpectNoModelPublished();
    const RunResult text = Pull(hub, {"--text"});
    EXPECT_EQ(text.exit_code, 65);
    EXPECT_EQ(text.err.find(file + " ("), std::string::npos) << "not reported verified: " << text.err;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(models_, ec)) {
      EXPECT_NE(e.path().filename(), file) << "the corrupted file is removed: " << e.path();
    }
  }
  // From a good server the pull completes, fetching the corrupted files anew.
  HubServer good(tmp_.path(), source_, {});
  const RunResult r = Pull(good);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(json::parse(r.out)["resumed_bytes"], 0);
  ExpectSameFiles(models_ / kName);
}

TEST_F(ModelPullTest, AListingThatPointsOutsideTheModelsFolderIsRefused) {
  HubServer hub(tmp_.path(), source_,
                {"--extra-entry",
                 R"({"type":"file","path":"../../escape","size":1,"oid":")" + std::string(40, 'a') + "\"}"});
  ASSERT_FALSE(hub.endpoint().empty());
  const RunResult r = Pull(hub);
  EXPECT_EQ(r.exit_code, 65) << r.out << r.err;
  EXPECT_NE(r.out.find("../../escape"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(fs::path(tmp_.path()) / "escape"));
  for (const json& req : hub.Requests()) {
    EXPECT_NE(req["path"].get<std::string>().find("/tree/"), std::string::npos) << "no file fetched: " << req;
  }
}

TEST_F(ModelPullTest, AMissingRepositoryAndAnUnreachableHubAreTold) {
  HubServer hub(tmp_.path(), source_, {});
  ASSERT_FALSE(hub.endpoint().empty());
  RunResult r = RunProgram({MineructlPath(), "model", "pull", "test-org/no-such-model", "--endpoint",
                            hub.endpoint(), "--models-dir", models_.string()});
  EXPECT_EQ(r.exit_code, 65) << r.err;
  EXPECT_NE(r.err.find("no repository test-org/no-such-model"), std::string::npos) << r.err;

  // A port nobody listens on: this socket is bound and never listened to.
  UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::getsockname(s.get(), reinterpret_cast<sockaddr*>(&addr), &len), 0);
  r = RunProgram({MineructlPath(), "model", "pull", kRepo, "--endpoint",
                  "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)), "--models-dir",
                  models_.string()});
  EXPECT_EQ(r.exit_code, 69) << r.err;
  EXPECT_EQ(r.err.find("systemctl"), std::string::npos) << "no advice about starting minerud: " << r.err;
}

}  // namespace
}  // namespace mineru::testing
