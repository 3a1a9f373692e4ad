// The remote backend in the real daemon against real HTTP servers on 127.0.0.1
// (openai_test_server.py, a stand-in for vLLM and SGLang): pages reach the servers as MinerU's client
// sends them and come back as model text through the parser and writers; recorded vLLM and SGLang
// streams parse; misbehaving servers (garbage, HTTP 500, a slow trickle, a stream cut short, an
// oversized answer) fail pages or hand them to a good server, nothing hangs and the daemon keeps
// serving; a server killed in the middle of a 20-page job leaves the job to the other.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "document/pdf_document.h"
#include "tests/daemon/temp_dir.h"
#include "tests/document/test_pdf.h"
#include "tests/integration/daemon_harness.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One test server process.
class TestServer {
 public:
  TestServer(const std::string& dir, const std::string& name, std::vector<std::string> args) {
    port_file_ = dir + "/" + name + ".port";
    log_ = dir + "/" + name + ".log";
    std::vector<std::string> argv = {"/usr/bin/python3",
                                     (SourceDir() / "tests/integration/openai_test_server.py").string(),
                                     "--port-file",
                                     port_file_,
                                     "--log",
                                     log_};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = Spawn(argv, {}, "", dir + "/" + name + ".err");
    const MonoTime until = MonoNow() + std::chrono::seconds(20);
    while (!fs::exists(port_file_) && MonoNow() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    port_ = ReadFile(port_file_);
  }
  ~TestServer() { Kill(); }
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    WaitExit(pid_, 10'000);
    pid_ = -1;
  }
  bool ok() const { return !port_.empty(); }
  std::string url() const { return "http://127.0.0.1:" + port_; }
  // Chat requests it has received.
  int Requests() const {
    const std::string log = ReadFile(log_);
    return static_cast<int>(std::count(log.begin(), log.end(), '\n'));
  }

 private:
  std::string port_file_, log_, port_;
  pid_t pid_ = -1;
};

// A PDF of `n` pages, each of its own width, so each page's PNG (and so its answer) is its own.
std::string WritePdf(const std::string& dir, const std::string& name, int n) {
  std::vector<document::testing::TestPage> pages;
  for (int i = 0; i < n; ++i) {
    document::testing::TestPage p;
    p.width_pt = 150 + 9 * i;
    p.height_pt = 120;
    p.content = document::testing::TextAt(20, 60, 14, "Page " + std::to_string(i + 1));
    pages.push_back(p);
  }
  const std::vector<uint8_t> bytes = document::testing::MakePdf(pages);
  const std::string path = dir + "/" + name + ".pdf";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// The size of each page rendered at 200 DPI, by MuPDF in this process.
std::vector<std::pair<int, int>> RenderSizes(const std::string& pdf_path) {
  const std::vector<uint8_t> bytes = document::testing::ReadFileBytes(pdf_path);
  auto pdf = document::PdfDocument::Open(bytes, document::DocumentLimits{}, nullptr);
  EXPECT_TRUE(pdf.ok());
  std::vector<std::pair<int, int>> sizes;
  for (int i = 0; i < (*pdf)->page_count(); ++i) {
    auto r = (*pdf)->RenderPage(i, 200);
    EXPECT_TRUE(r.ok());
    sizes.emplace_back(r->width, r->height);
  }
  return sizes;
}

std::vector<std::string> SplitPages(const std::string& text) {
  const std::string sep = "\n" + std::string(50, '-') + "\n";
  std::vector<std::string> pages;
  size_t start = 0;
  for (size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + sep.size()) {
    pages.push_back(text.substr(start, at - start));
  }
  pages.push_back(text.substr(start));
  return pages;
}

class RemoteBackendTest : public ::testing::Test {
 protected:
  // Starts minerud with backend = remote on `urls`.
  ::testing::AssertionResult StartDaemon(const std::vector<std::string>& urls,
                                         const std::string& timeout = "3s",
                                         std::vector<std::string> extra = {}) {
    std::string joined;
    for (const auto& u : urls) joined += (joined.empty() ? "" : " ") + u;
    const std::string dir = tmp_.path() + "/d" + std::to_string(++daemons_);
    fs::create_directories(dir);
    daemon_.emplace(dir);
    std::vector<std::string> args;  // no URLs: the config file passed in `extra` names them
    if (!urls.empty()) {
      args = {
          "--set", "backend=remote",    "--set", "remote_url=" + joined, "--set", "remote_timeout=" + timeout,
          "--set", "max_new_tokens=40", "--set", "remote_concurrency=2"};
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return daemon_->Start(args);
  }

  json Stats() {
    RunResult r = daemon_->Ctl({"--json", "stats"}, {}, 20'000);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  // The daemon answers and runs no page any more.
  void ExpectHealthy() {
    ASSERT_TRUE(daemon_->running());
    EXPECT_EQ(::kill(daemon_->pid(), 0), 0) << "minerud is gone; log:\n" << daemon_->Log();
    const json s = Stats();
    ASSERT_FALSE(s.is_discarded());
    EXPECT_EQ(s["counters"]["remote_pages_in_flight"].get<double>(), 0) << s.dump();
    EXPECT_EQ(s["counters"]["remote_pages_waiting"].get<double>(), 0) << s.dump();
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  int daemons_ = 0;
};

TEST_F(RemoteBackendTest, PagesGoToVllmAndSglangServersAndComeBackInOrder) {
  TestServer vllm(tmp_.path(), "vllm", {"--flavor", "vllm"});
  TestServer sglang(tmp_.path(), "sglang", {"--flavor", "sglang"});
  ASSERT_TRUE(vllm.ok() && sglang.ok());
  ASSERT_TRUE(StartDaemon({vllm.url(), sglang.url() + "/"}));
  const std::string pdf = WritePdf(tmp_.path(), "doc", 8);
  const std::string out = tmp_.path() + "/out";
  RunResult r = daemon_->Ctl({"submit", pdf, "-o", out}, {}, 60'000);
  ASSERT_EQ(r.exit_code, 0) << r.err << "\nlog:\n" << daemon_->Log();
  const auto sizes = RenderSizes(pdf);
  const std::vector<std::string> pages = SplitPages(ReadFile(out + "/doc_model_output.txt"));
  ASSERT_EQ(pages.size(), sizes.size());
  const std::string md = ReadFile(out + "/doc.md");
  for (size_t i = 0; i < sizes.size(); ++i) {
    const std::string size = std::to_string(sizes[i].first) + "x" + std::to_string(sizes[i].second);
    EXPECT_NE(pages[i].find("<|md_start|># Page " + size + "<|md_end|>"), std::string::npos) << pages[i];
    EXPECT_NE(pages[i].find("<|box_start|>"), std::string::npos) << "special tokens kept: " << pages[i];
    EXPECT_NE(md.find("# Page " + size), std::string::npos) << md;
    EXPECT_NE(md.find("width $w = " + std::to_string(sizes[i].first) + "$"), std::string::npos) << md;
  }
  EXPECT_EQ(vllm.Requests() + sglang.Requests(), 8);
  EXPECT_GE(vllm.Requests(), 2);
  EXPECT_GE(sglang.Requests(), 2);
  const json s = Stats();
  EXPECT_EQ(s["counters"]["remote_pages_total"].get<double>(), 8) << s.dump();
  EXPECT_EQ(s["counters"]["remote_servers_in_rotation"].get<double>(), 2) << s.dump();
}

TEST_F(RemoteBackendTest, RecordedVllmAndSglangStreamsParse) {
  const fs::path data = SourceDir() / "tests/pipeline/testdata";
  const std::string want = ReadFile((data / "model_text.txt").string());
  ASSERT_FALSE(want.empty());
  for (const char* name : {"vllm_stream.txt", "sglang_stream.txt"}) {
    SCOPED_TRACE(name);
    TestServer server(tmp_.path(), std::string("replay-") + name,
                      {"--mode", "replay", "--replay", (data / name).string()});
    ASSERT_TRUE(server.ok());
    ASSERT_TRUE(StartDaemon({server.url()}));
    const std::string pdf = WritePdf(tmp_.path(), "one", 1);
    const std::string out = tmp_.path() + "/out-" + name;
    RunResult r = daemon_->Ctl({"submit", pdf, "-o", out}, {}, 60'000);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadFile(out + "/one_model_output.txt"), want);
    const std::string md = ReadFile(out + "/one.md");
    EXPECT_NE(md.find("# Quarterly report"), std::string::npos) << md;
    EXPECT_NE(md.find("$$\nr = \\frac{a}{b}\n$$"), std::string::npos) << md;
    daemon_->Stop();
  }
}

// Each way a server can misbehave: alone, the job fails in bounded time after each page was tried twice;
// beside a good server, every page is answered by the good one. Either way the daemon keeps serving.
TEST_F(RemoteBackendTest, MisbehavingServersFailOrHandPagesOnAndNothingHangs) {
  const std::string pdf = WritePdf(tmp_.path(), "two", 2);
  for (const char* mode : {"garbage", "http500", "trickle", "truncate", "oversized"}) {
    SCOPED_TRACE(mode);
    {
      TestServer bad(tmp_.path(), std::string("alone-") + mode, {"--mode", mode});
      ASSERT_TRUE(bad.ok());
      ASSERT_TRUE(StartDaemon({bad.url()}, "2s"));
      const Stopwatch clock;
      RunResult r = daemon_->Ctl({"submit", pdf, "-o", tmp_.path() + "/fail-" + mode}, {}, 60'000);
      EXPECT_EQ(r.exit_code, 1) << r.err;
      EXPECT_NE(r.err.find(bad.url()), std::string::npos) << "the error names the server: " << r.err;
      EXPECT_LT(clock.ElapsedSeconds(), 30) << "a bad server must not hold a job for long";
      EXPECT_EQ(bad.Requests(), 4) << "each page tried twice on the one server";
      ExpectHealthy();
      daemon_->Stop();
    }
    {
      TestServer bad(tmp_.path(), std::string("beside-") + mode, {"--mode", mode});
      TestServer good(tmp_.path(), std::string("good-") + mode, {});
      ASSERT_TRUE(bad.ok() && good.ok());
      ASSERT_TRUE(StartDaemon({bad.url(), good.url()}, "2s"));
      const std::string out = tmp_.path() + "/ok-" + mode;
      RunResult r = daemon_->Ctl({"submit", pdf, "-o", out}, {}, 60'000);
      ASSERT_EQ(r.exit_code, 0) << r.err << "\nlog:\n" << daemon_->Log();
      const std::vector<std::string> pages = SplitPages(ReadFile(out + "/two_model_output.txt"));
      ASSERT_EQ(pages.size(), 2u);
      for (const std::string& p : pages) EXPECT_NE(p.find("# Page "), std::string::npos) << p;
      EXPECT_EQ(good.Requests(), 2);
      ExpectHealthy();
      daemon_->Stop();
    }
  }
}

TEST_F(RemoteBackendTest, ServerKilledMidJobLeavesItsPagesToTheOther) {
  TestServer a(tmp_.path(), "a", {"--delay", "0.3"});
  TestServer b(tmp_.path(), "b", {"--delay", "0.3"});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(StartDaemon({a.url(), b.url()}, "5s"));
  const std::string pdf = WritePdf(tmp_.path(), "twenty", 20);
  RunResult sub = daemon_->Ctl({"submit", "--detach", pdf}, {}, 20'000);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  const std::string id = sub.out.substr(0, sub.out.find('\n'));
  const MonoTime until = MonoNow() + std::chrono::seconds(30);
  while (a.Requests() < 3 && MonoNow() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(a.Requests(), 3);
  a.Kill();
  const int a_requests = a.Requests();
  RunResult wait = daemon_->Ctl({"wait", id}, {}, 90'000);
  ASSERT_EQ(wait.exit_code, 0) << wait.err << "\nlog:\n" << daemon_->Log();
  const std::string out = tmp_.path() + "/twenty";
  ASSERT_EQ(daemon_->Ctl({"fetch", id, "-o", out}, {}, 20'000).exit_code, 0);
  const auto sizes = RenderSizes(pdf);
  const std::vector<std::string> pages = SplitPages(ReadFile(out + "/twenty_model_output.txt"));
  ASSERT_EQ(pages.size(), 20u);
  for (size_t i = 0; i < pages.size(); ++i) {
    const std::string size = std::to_string(sizes[i].first) + "x" + std::to_string(sizes[i].second);
    EXPECT_NE(pages[i].find("# Page " + size), std::string::npos) << "page " << i + 1 << ": " << pages[i];
  }
  // b answered what a had not finished; a answered at most what it received before it died.
  EXPECT_GE(b.Requests(), 20 - a_requests) << "a got " << a_requests;
  const json s = Stats();
  EXPECT_EQ(s["counters"]["remote_servers_in_rotation"].get<double>(), 1) << s.dump();
  EXPECT_EQ(s["counters"]["remote_pages_failed_total"].get<double>(), 0) << s.dump();
  ExpectHealthy();
}

TEST_F(RemoteBackendTest, CancelEndsPagesOnASlowServerAtOnce) {
  TestServer slow(tmp_.path(), "slow", {"--mode", "trickle"});
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE(StartDaemon({slow.url()}, "60s"));
  const std::string pdf = WritePdf(tmp_.path(), "slow", 3);
  RunResult sub = daemon_->Ctl({"submit", "--detach", pdf}, {}, 20'000);
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  const std::string id = sub.out.substr(0, sub.out.find('\n'));
  const MonoTime until = MonoNow() + std::chrono::seconds(20);
  while (slow.Requests() < 1 && MonoNow() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_GE(slow.Requests(), 1);
  const Stopwatch clock;
  ASSERT_EQ(daemon_->Ctl({"cancel", id}, {}, 20'000).exit_code, 0);
  RunResult wait = daemon_->Ctl({"wait", id}, {}, 30'000);
  EXPECT_NE(wait.exit_code, 0);
  EXPECT_LT(clock.ElapsedSeconds(), 10);
  ExpectHealthy();
}

TEST_F(RemoteBackendTest, ApiKeyIsSentAndNeverLogged) {
  const std::string key = "sk-test-2b7c9f0e4d1a";
  TestServer server(tmp_.path(), "keyed", {"--api-key", key});
  ASSERT_TRUE(server.ok());
  const std::string key_file = tmp_.path() + "/key";
  std::ofstream(key_file) << key << "\n";
  ASSERT_TRUE(StartDaemon({server.url()}, "3s",
                          {"--set", "remote_api_key_file=" + key_file, "--log-level", "debug"}));
  const std::string pdf = WritePdf(tmp_.path(), "k", 1);
  RunResult r = daemon_->Ctl({"submit", pdf, "-o", tmp_.path() + "/k"}, {}, 30'000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.Requests(), 1);
  RunResult check = RunProgram({MinerudPath(), "--check-config", "--set", "backend=remote", "--set",
                                "remote_url=" + server.url(), "--set", "remote_api_key_file=" + key_file});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  for (const std::string& text : {daemon_->Log(), r.err, r.out, check.out, check.err}) {
    EXPECT_EQ(text.find(key), std::string::npos) << text;
  }
}

TEST_F(RemoteBackendTest, ConfigErrorsAreCaughtAtStart) {
  struct Case {
    std::vector<std::string> sets;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"backend=remote"}, "remote_url"},
      {{"remote_url=http://127.0.0.1:1"}, "backend"},
      {{"backend=remote", "remote_url=ftp://host"}, "http"},
      {{"backend=remote", "remote_url=http://127.0.0.1:1", "remote_api_key_file=/nonexistent/key"},
       "/nonexistent/key"},
      {{"backend=model"}, "model_dir"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {MinerudPath(), "--check-config"};
    for (const auto& s : c.sets) argv.insert(argv.end(), {"--set", s});
    RunResult r = RunProgram(argv);
    EXPECT_EQ(r.exit_code, 78) << c.sets[0] << ": " << r.out << r.err;
    EXPECT_NE((r.out + r.err).find(c.says), std::string::npos) << r.out << r.err;
  }
}

}  // namespace
}  // namespace mineru::testing

namespace mineru::testing {
namespace {

TEST_F(RemoteBackendTest, ReloadKeepsTheServersUntilRestart) {
  TestServer a(tmp_.path(), "first", {});
  TestServer b(tmp_.path(), "second", {});
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string conf = tmp_.path() + "/minerud.conf";
  std::ofstream(conf) << "backend = remote\nremote_url = " << a.url() << "\nmax_new_tokens = 40\n";
  ASSERT_TRUE(StartDaemon({}, "", {"--config", conf}));
  std::ofstream(conf) << "backend = remote\nremote_url = " << b.url() << "\nmax_new_tokens = 40\n";
  ASSERT_EQ(::kill(daemon_->pid(), SIGHUP), 0);
  ASSERT_TRUE(daemon_->WaitNotify("RELOADING=1")) << daemon_->Log();
  ASSERT_TRUE(daemon_->WaitNotify("READY=1")) << daemon_->Log();
  const std::string pdf = WritePdf(tmp_.path(), "reload", 1);
  RunResult r = daemon_->Ctl({"submit", pdf, "-o", tmp_.path() + "/reload"}, {}, 30'000);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(a.Requests(), 1);
  EXPECT_EQ(b.Requests(), 0);
  EXPECT_NE(daemon_->Log().find("remote_* keys change only at restart"), std::string::npos) << daemon_->Log();
}

}  // namespace
}  // namespace mineru::testing
