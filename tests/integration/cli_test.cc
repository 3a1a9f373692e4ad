// The real minerud driven by the real mineructl: submit / wait / cancel / fetch / list / stats,
// --json output, two clients at once, exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every line of `out` parsed as JSON (fails the test on a line that is not).
std::vector<json> JsonLines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << line;
    lines.push_back(j);
  }
  return lines;
}

// A few words of the PDF's text layer as poppler (not our code) reads it.
std::vector<std::string> PopplerWords(const std::string& pdf) {
  RunResult r = RunProgram({"/usr/bin/pdftotext", "-l", "1", pdf, "-"});
  std::vector<std::string> words;
  std::istringstream in(r.out);
  std::string w;
  while (in >> w && words.size() < 40) {
    bool alpha = w.size() >= 3;
    for (char c : w) alpha = alpha && std::isalpha(static_cast<unsigned char>(c));
    if (alpha) words.push_back(w);
  }
  return words;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    sample_ = SamplePdf(shared);
    multi_ = (shared / "corpus/docling/pdf/multi_page.pdf").string();
    if (sample_.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    daemon_.emplace(tmp_.path());
    ASSERT_TRUE(daemon_->Start());
  }

  // `copies` jobs of the multi-page PDF queued with one `submit --detach`; their ids in order (empty
  // when the submit failed).
  std::vector<std::string> SubmitDetached(int copies) {
    std::vector<std::string> argv = {"submit", "--detach"};
    for (int i = 0; i < copies; ++i) argv.push_back(multi_);
    RunResult r = daemon_->Ctl(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> ids;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) ids.push_back(line);
    }
    return ids;
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::string sample_;
  std::string multi_;
};

TEST_F(CliTest, SubmitWritesMineruOutputsThatMatchThePdfText) {
  std::string out = tmp_.path() + "/out";
  RunResult r = daemon_->Ctl({"submit", sample_, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("page 4/4"), std::string::npos) << "plain progress lines when not a TTY: " << r.err;
  std::string md = ReadFile(out + "/normal_4pages.md");
  ASSERT_FALSE(md.empty());
  json content = json::parse(ReadFile(out + "/normal_4pages_content_list.json"), nullptr, false);
  ASSERT_TRUE(content.is_array());
  EXPECT_FALSE(content.empty());
  json middle = json::parse(ReadFile(out + "/normal_4pages_middle.json"), nullptr, false);
  ASSERT_FALSE(middle.is_discarded());
  // Images the Markdown links to are there.
  size_t pos = 0;
  int images = 0;
  while ((pos = md.find("](images/", pos)) != std::string::npos) {
    size_t end = md.find(')', pos);
    std::string rel = md.substr(pos + 2, end - pos - 2);
    EXPECT_TRUE(fs::exists(out + "/" + rel)) << rel;
    ++images;
    pos = end;
  }
  // At least half of poppler's words from page 1 appear in our Markdown.
  auto words = PopplerWords(sample_);
  if (!words.empty()) {
    size_t found = 0;
    for (const auto& w : words) found += md.find(w) != std::string::npos;
    EXPECT_GE(found * 2, words.size()) << "few of poppler's words are in the Markdown";
  }
}

TEST_F(CliTest, DefaultOutputFolderIsNameDotMineru) {
  SpawnOptions in_tmp;
  RunResult r = RunProgram({"/bin/sh", "-c",
                            "cd '" + tmp_.path() + "' && '" + MineructlPath() + "' --socket '" +
                                daemon_->socket_path() + "' -q submit '" + sample_ + "'"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(tmp_.path() + "/normal_4pages.mineru/normal_4pages.md"));
  EXPECT_EQ(r.err.find("page 1/4"), std::string::npos) << "-q prints no progress";
}

TEST_F(CliTest, SubmitFromStdinUsesName) {
  SpawnOptions so;
  so.stdin_file = sample_;
  RunResult r = daemon_->Ctl({"submit", "-", "--name", "piped", "-o", tmp_.path() + "/p"}, so);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(tmp_.path() + "/p/piped.md"));
}

TEST_F(CliTest, StreamPrintsEveryPageAsItIsParsed) {
  const std::string out = tmp_.path() + "/s";
  RunResult r = daemon_->Ctl({"--json", "submit", "--stream", sample_, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> pages;
  bool done_after_pages = false;
  for (const json& line : JsonLines(r.out)) {
    if (line.value("event", "") == "page") {
      EXPECT_FALSE(done_after_pages) << "a page after the job was done";
      pages.push_back(line);
    }
    if (line.value("event", "") == "done") done_after_pages = true;
  }
  ASSERT_EQ(pages.size(), 4u) << r.out;
  json items = json::array();
  for (size_t i = 0; i < pages.size(); ++i) {
    EXPECT_EQ(pages[i]["page_idx"], i);
    EXPECT_FALSE(pages[i]["markdown"].get<std::string>().empty());
    for (const json& item : pages[i]["content_list"]) items.push_back(item);
  }
  EXPECT_EQ(items, json::parse(ReadFile(out + "/normal_4pages_content_list.json")));

  // Plain: the pages' Markdown on stdout, the files written as usual.
  RunResult plain = daemon_->Ctl({"-q", "submit", "--stream", sample_, "-o", tmp_.path() + "/p"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find(pages[3]["markdown"].get<std::string>()), std::string::npos) << plain.out;
  EXPECT_TRUE(fs::exists(tmp_.path() + "/p/normal_4pages.md"));
  EXPECT_EQ(daemon_->Ctl({"submit", "--stream", "--detach", sample_}).exit_code, 64);
}

TEST_F(CliTest, DetachListStatusWaitFetchAndSecondFetch) {
  RunResult sub = daemon_->Ctl({"submit", "--detach", sample_});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  std::string id = sub.out.substr(0, sub.out.find('\n'));
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(std::to_string(std::stoull(id)), id) << "--detach prints only the id: " << sub.out;

  RunResult wait = daemon_->Ctl({"wait", id});
  ASSERT_EQ(wait.exit_code, 0) << wait.err;
  RunResult status = daemon_->Ctl({"--json", "status", id});
  ASSERT_EQ(status.exit_code, 0);
  auto lines = JsonLines(status.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["state"], "done");
  EXPECT_EQ(lines[0]["pages_total"], 4);

  RunResult list = daemon_->Ctl({"list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("normal_4pages"), std::string::npos);
  RunResult ps = daemon_->Ctl({"--json", "ps"});
  EXPECT_EQ(JsonLines(ps.out).size(), 1u);

  RunResult fetch = daemon_->Ctl({"fetch", id, "-o", tmp_.path() + "/f"});
  ASSERT_EQ(fetch.exit_code, 0) << fetch.err;
  EXPECT_TRUE(fs::exists(tmp_.path() + "/f/normal_4pages.md"));
  // Fetched results leave the spool.
  RunResult again = daemon_->Ctl({"fetch", id, "-o", tmp_.path() + "/g"});
  EXPECT_EQ(again.exit_code, 65);
  EXPECT_NE(again.err.find("already fetched"), std::string::npos) << again.err;
}

TEST_F(CliTest, CancelQueuedJobsAndCancelAll) {
  // One worker and sixteen documents queued at once: the last is still queued when it is cancelled,
  // however fast one document parses.
  daemon_->Stop();
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  const std::vector<std::string> ids = SubmitDetached(16);
  ASSERT_EQ(ids.size(), 16u);
  const std::string& last_id = ids.back();
  RunResult cancel = daemon_->Ctl({"cancel", last_id});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  RunResult st = daemon_->Ctl({"--json", "status", last_id});
  EXPECT_EQ(JsonLines(st.out).at(0)["state"], "cancelled");
  RunResult all = daemon_->Ctl({"--json", "cancel", "--all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  // Waiting on a cancelled job ends with exit 1.
  RunResult wait = daemon_->Ctl({"wait", last_id});
  EXPECT_EQ(wait.exit_code, 1);
  // The job that was running stops at its next page, not at once: wait for every job to end (exit 1:
  // some were cancelled), then nothing is left queued or running.
  std::vector<std::string> wait_all = {"wait"};
  wait_all.insert(wait_all.end(), ids.begin(), ids.end());
  wait_all.insert(wait_all.end(), {"--timeout", "60s"});
  EXPECT_EQ(daemon_->Ctl(wait_all).exit_code, 1);
  RunResult list = daemon_->Ctl({"--json", "list"});
  for (const json& j : JsonLines(list.out)) {
    EXPECT_NE(j["state"], "queued");
    EXPECT_NE(j["state"], "running");
  }
  // Cancelling a finished job is an error, not a crash.
  EXPECT_NE(daemon_->Ctl({"cancel", last_id}).exit_code, 0);
}

// Cancelling mid-document once deadlocked a worker inside MuPDF (a failed allocation under the
// FreeType lock made the store scavenger take that lock again); document/ now uses recursive locks.
TEST_F(CliTest, CancelRunningJobStopsItBeforeTheLastPage) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::string big = (shared / "corpus/docling/pdf/redp5110_sampled.pdf").string();  // 18 pages
  if (!fs::exists(big)) GTEST_SKIP() << big << " missing";
  RunResult sub = daemon_->Ctl({"submit", "--detach", big});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  std::string id = sub.out.substr(0, sub.out.find('\n'));
  // Wait until a page is done (it is running), then cancel.
  json st;
  for (int i = 0; i < 400; ++i) {
    st = JsonLines(daemon_->Ctl({"--json", "status", id}).out).at(0);
    if (st["pages_done"].get<int>() >= 1 || st["state"] != "queued") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(st["state"], "running") << st.dump();
  RunResult cancel = daemon_->Ctl({"cancel", id});
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  RunResult wait = daemon_->Ctl({"--json", "wait", id, "--timeout", "60s"});
  EXPECT_EQ(wait.exit_code, 1);
  json last = JsonLines(wait.out).back();
  EXPECT_EQ(last["state"], "cancelled");
  EXPECT_LT(last["pages_done"].get<int>(), 18) << "the job stopped before its last page";
  EXPECT_EQ(daemon_->Ctl({"fetch", id, "-o", tmp_.path() + "/c"}).exit_code, 130)
      << "a cancelled job has no results";
}

TEST_F(CliTest, JsonEverywhereAndErrorsAsJson) {
  RunResult sub = daemon_->Ctl({"--json", "submit", sample_, "-o", tmp_.path() + "/j"});
  ASSERT_EQ(sub.exit_code, 0) << sub.err;
  auto lines = JsonLines(sub.out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.front()["event"], "accepted");
  EXPECT_EQ(lines.back()["event"], "written");
  bool saw_progress = false, saw_done = false;
  for (const auto& j : lines) {
    saw_progress |= j.value("event", "") == "progress";
    saw_done |= j.value("event", "") == "done";
  }
  EXPECT_TRUE(saw_progress);
  EXPECT_TRUE(saw_done);

  RunResult stats = daemon_->Ctl({"--json", "stats"});
  ASSERT_EQ(stats.exit_code, 0);
  auto s = JsonLines(stats.out);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_GE(s[0]["counters"]["jobs_done"].get<double>(), 1.0);
  EXPECT_GE(s[0]["counters"]["pages_parsed_total"].get<double>(), 4.0);

  RunResult ds = daemon_->Ctl({"--json", "daemon-status"});
  ASSERT_EQ(ds.exit_code, 0);
  EXPECT_EQ(JsonLines(ds.out).at(0)["peer_uid"], ::geteuid());

  RunResult missing = daemon_->Ctl({"--json", "status", "999999"});
  EXPECT_EQ(missing.exit_code, 65);
  auto err = JsonLines(missing.out);
  ASSERT_EQ(err.size(), 1u);
  EXPECT_TRUE(err[0].contains("error"));

  RunResult bad_file = daemon_->Ctl({"--json", "submit", tmp_.path() + "/nope.pdf"});
  EXPECT_EQ(bad_file.exit_code, 65);
  EXPECT_TRUE(JsonLines(bad_file.out).at(0).contains("error"));
}

TEST_F(CliTest, BrokenPdfFailsTheJobAndTheDaemonCarriesOn) {
  std::string junk = tmp_.path() + "/junk.pdf";
  { std::ofstream(junk) << "%PDF-1.7\nthis is not a PDF at all\n"; }
  RunResult r = daemon_->Ctl({"submit", junk, "-o", tmp_.path() + "/junk"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("failed"), std::string::npos) << r.err;
  RunResult ok = daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/ok"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(CliTest, TwoClientsAtOnceGetIdenticalResults) {
  RunResult a, b;
  std::thread ta([&] { a = daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/a"}); });
  std::thread tb([&] { b = daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/b"}); });
  ta.join();
  tb.join();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  for (const char* f : {"normal_4pages.md", "normal_4pages_content_list.json", "normal_4pages_middle.json"}) {
    std::string fa = ReadFile(tmp_.path() + "/a/" + f);
    EXPECT_FALSE(fa.empty()) << f;
    EXPECT_EQ(fa, ReadFile(tmp_.path() + "/b/" + f)) << f;
  }
}

TEST_F(CliTest, AttachedSubmitNamesItsJobAndTimeoutAndWriteErrorsHaveTheirExitCodes) {
  RunResult r = daemon_->Ctl({"submit", "--output=" + tmp_.path() + "/out", "--", sample_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.err.find("job ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string id = r.err.substr(at + 4, r.err.find(':', at) - at - 4);
  RunResult st = daemon_->Ctl({"--json", "status", id});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_EQ(JsonLines(st.out).at(0)["state"], "done") << "the id printed is the job's";
  EXPECT_EQ(daemon_->Ctl({"-q", "submit", sample_, "-o", tmp_.path() + "/quiet"}).err.find("accepted"),
            std::string::npos);

  // A wait that runs out of time: 124; the job goes on. The job waited on is the last of twelve queued at
  // once for two workers, so it is not done 1 ms into the wait however fast one document parses.
  const std::vector<std::string> ids = SubmitDetached(12);
  ASSERT_EQ(ids.size(), 12u);
  const std::string job = ids.back();
  EXPECT_EQ(daemon_->Ctl({"wait", job, "--timeout=1ms"}).exit_code, 124);
  EXPECT_EQ(daemon_->Ctl({"wait", job}).exit_code, 0);
  // An output folder that cannot be made (a file is in the way): 74.
  std::string blocker = tmp_.path() + "/blocker";
  { std::ofstream(blocker) << "a file"; }
  RunResult w = daemon_->Ctl({"--json", "fetch", job, "-o", blocker + "/out"});
  EXPECT_EQ(w.exit_code, 74) << w.out << w.err;
  EXPECT_EQ(JsonLines(w.out).at(0)["exit_code"], 74);
}

TEST_F(CliTest, BudgetWithoutAModelIsAClearError) {
  RunResult r = daemon_->Ctl({"budget", "6G"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("runs no model"), std::string::npos) << r.err;
  EXPECT_EQ(daemon_->Ctl({"budget", "lots"}).exit_code, 64);
  EXPECT_EQ(daemon_->Ctl({"budget"}).exit_code, 64);
}

TEST_F(CliTest, UsageErrorsAndUnreachableDaemon) {
  EXPECT_EQ(daemon_->Ctl({"frobnicate"}).exit_code, 64);
  EXPECT_EQ(daemon_->Ctl({"submit"}).exit_code, 64);
  EXPECT_EQ(daemon_->Ctl({"fetch", "1"}).exit_code, 64);
  EXPECT_EQ(daemon_->Ctl({"status", "abc"}).exit_code, 64);
  RunResult help = RunProgram({MineructlPath(), "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* cmd :
       {"submit", "status", "list", "wait", "cancel", "fetch", "stats", "daemon-status", "--json"}) {
    EXPECT_NE(help.out.find(cmd), std::string::npos) << cmd;
  }
  RunResult gone = RunProgram({MineructlPath(), "--socket", tmp_.path() + "/no.sock", "list"});
  EXPECT_EQ(gone.exit_code, 69);
  EXPECT_NE(gone.err.find("minerud"), std::string::npos);
}

TEST(MinerudCommandLine, HelpListsEveryConfigKeyAndBadOptionsAreUsageErrors) {
  RunResult help = RunProgram({MinerudPath(), "--help"});
  ASSERT_EQ(help.exit_code, 0);
  for (const char* key : {"socket", "socket_mode", "state_dir", "max_jobs_per_user", "drain_timeout",
                          "result_retention", "admin_group", "vram_budget"}) {
    EXPECT_NE(help.out.find(std::string("  ") + key + " ("), std::string::npos) << key;
  }
  EXPECT_EQ(RunProgram({MinerudPath(), "--bogus"}).exit_code, 64);
  EXPECT_EQ(RunProgram({MinerudPath(), "--set", "nope=1"}).exit_code, 64);
  EXPECT_EQ(RunProgram({MinerudPath(), "--config", "/nonexistent/minerud.conf", "--check-config"}).exit_code,
            78);
  EXPECT_EQ(RunProgram({MinerudPath(), "--set", "max_jobs_queued=0", "--check-config"}).exit_code, 78);
}

TEST(MinerudCommandLine, PlanTakesItsDefaultsFromTheDaemonsConfigFile) {
  TempDir tmp;
  const std::string model = (mineru::testing::SourceDir() / "examples" / "mineru2-0.9b-config").string();
  const std::string conf = tmp.path() + "/minerud.conf";
  { std::ofstream(conf) << "model_dir = " << model << "\nvram_budget = 6G\nmax_batch = 7\n"; }
  RunResult planned = RunProgram({MinerudPath(), "plan", "--config", conf});
  if (planned.exit_code == 70 && planned.err.find("not built") != std::string::npos) {
    GTEST_SKIP() << "this minerud is built without the model backend";
  }
  ASSERT_EQ(planned.exit_code, 0) << planned.out << planned.err;
  EXPECT_NE(planned.out.find("model: " + model), std::string::npos) << planned.out;
  EXPECT_NE(planned.out.find("budget: 6G VRAM"), std::string::npos) << planned.out;
  EXPECT_NE(planned.out.find("\nbatch 7:"), std::string::npos) << planned.out;
  // A flag overrides the file.
  RunResult flag = RunProgram({MinerudPath(), "plan", "--config=" + conf, "--max-batch", "3"});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_NE(flag.out.find("\nbatch 3:"), std::string::npos) << flag.out;
  // Without a model anywhere, the message names both places.
  RunResult none = RunProgram({MinerudPath(), "plan", "--config", "/dev/null", "--vram-budget", "6G"});
  EXPECT_EQ(none.exit_code, 64);
  EXPECT_NE(none.err.find("model_dir in the config file"), std::string::npos) << none.err;
}

TEST(MinerudCommandLine, CheckConfigPrintsEveryKeyAndEveryProblem) {
  TempDir tmp;
  RunResult ok = RunProgram({MinerudPath(), "--check-config", "--config", "/dev/null", "--state-dir",
                             tmp.path() + "/state", "--set", "max_batch=7"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  RunResult help = RunProgram({MinerudPath(), "--help"});
  size_t keys = 0;
  for (size_t at = help.out.find("Config keys"); (at = help.out.find("\n  ", at)) != std::string::npos;
       ++keys) {
    ++at;
    const std::string key = help.out.substr(at + 2, help.out.find(' ', at + 2) - at - 2);
    if (key.empty()) {  // a long key's help continues on the next line
      --keys;
      continue;
    }
    EXPECT_NE(ok.out.find("\n" + key + " = "), std::string::npos) << key << " missing from:\n" << ok.out;
  }
  EXPECT_GT(keys, 20u);
  EXPECT_NE(ok.out.find("\nmax_batch = 7\n"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("\nstate_dir = " + tmp.path() + "/state\n"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("configuration OK"), std::string::npos) << ok.out;

  // Two problems: both are reported.
  RunResult bad = RunProgram({MinerudPath(), "--check-config", "--config", "/dev/null", "--state-dir",
                              tmp.path() + "/state", "--set", "admin_group=no-such-group-here", "--model",
                              tmp.path() + "/no-model"});
  EXPECT_EQ(bad.exit_code, 78);
  EXPECT_NE(bad.out.find("admin_group  ERROR: admin_group 'no-such-group-here' does not exist"),
            std::string::npos)
      << bad.out;
  EXPECT_NE(bad.out.find("model        ERROR: model_dir " + tmp.path() + "/no-model is not a folder"),
            std::string::npos)
      << bad.out;
}

}  // namespace
}  // namespace mineru::testing
