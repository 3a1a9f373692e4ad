// Containment with the real binaries: documents are parsed in sandboxed worker processes, so a document
// that crashes its worker, hangs it or makes it allocate without bound fails alone, with a clear message,
// while other users' jobs complete with the right outputs, minerud keeps its pid and leaks no fd, memfd
// or child; a worker cannot open files or sockets or start programs; kill -9 of minerud with 60 jobs in
// flight loses none and runs none twice (a full state directory: lifecycle_test.cc). Faults come from
// minerud-test-worker (test_worker_main.cc), chosen by a marker line in the document; the production
// minerud-worker has no such code.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "daemon/spool.h"
#include "pipeline/text_layer_backend.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/second_user.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string TestWorkerPath() { return MINERUD_TEST_WORKER_PATH; }

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(MINERU_TSAN)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// Children of `pid` (every thread's /proc/PID/task/TID/children).
int CountChildren(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::istringstream in(ReadFile(task.path().string() + "/children"));
    for (std::string child; in >> child;) ++n;
  }
  return n;
}

// Open memfds of `pid`.
int CountMemfds(pid_t pid) {
  int n = 0;
  std::error_code ec;
  for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
    std::error_code lec;
    if (fs::read_symlink(fd.path(), lec).string().rfind("/memfd:", 0) == 0) ++n;
  }
  return n;
}

struct Counts {
  int fds = 0;
  int memfds = 0;
  int children = 0;
  bool operator==(const Counts&) const = default;
};
std::ostream& operator<<(std::ostream& o, const Counts& c) {
  return o << c.fds << " fds, " << c.memfds << " memfds, " << c.children << " children";
}
Counts CountsOf(pid_t pid) { return {CountFds(pid), CountMemfds(pid), CountChildren(pid)}; }

class WorkerContainmentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    sample_ = SamplePdf(shared);
    if (sample_.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    ::chmod(tmp_.path().c_str(), 0755);
    daemon_.emplace(tmp_.path());
  }

  // The sample with a fault marker appended (a PDF comment after %%EOF: MuPDF reads it as the sample).
  std::string FaultPdf(const std::string& fault) {
    const std::string path = tmp_.path() + "/" + fault + ".pdf";
    std::ofstream(path, std::ios::binary) << ReadFile(sample_) << "\n%MINERU-TEST-FAULT:" << fault << "\n";
    ::chmod(path.c_str(), 0644);
    return path;
  }

  // The sample's Markdown as the text-layer backend writes it in this process.
  std::string ExpectedMarkdown() {
    std::string pdf = ReadFile(sample_);
    pipeline::BackendInput input;
    input.document = {reinterpret_cast<const uint8_t*>(pdf.data()), pdf.size()};
    input.name = "normal_4pages";
    pipeline::CancelFlag cancel{false};
    auto out = pipeline::TextLayerBackend().Parse(
        input, [](int64_t, int64_t, auto) {}, cancel);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (!out.ok()) return "";
    for (const pipeline::OutputFile& f : out->files) {
      if (f.path == "normal_4pages.md") return f.data;
    }
    return "";
  }

  std::string Submit(const std::string& path, const SpawnOptions& as = {}) {
    RunResult r = daemon_->Ctl({"submit", "--detach", path}, as);
    EXPECT_EQ(r.exit_code, 0) << "mineructl submit " << path
                              << (as.uid ? " as uid " + std::to_string(*as.uid) : std::string())
                              << ": stderr: " << r.err;
    return FirstLine(r.out);
  }

  json Status(const std::string& id, const SpawnOptions& as = {}) {
    RunResult r = daemon_->Ctl({"--json", "status", id}, as);
    return json::parse(FirstLine(r.out), nullptr, false);
  }

  // Waits until the daemon's fds, memfds and children are `want` again (spares refill after a job).
  Counts SettledCounts(const Counts& want) {
    Deadline deadline = Deadline::InMillis(20'000);
    Counts now = CountsOf(daemon_->pid());
    while (!(now == want) && !deadline.Expired()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      now = CountsOf(daemon_->pid());
    }
    return now;
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::string sample_;
};

TEST_F(WorkerContainmentTest, FaultsFailTheirOwnJobAndNothingElse) {
  Result<SecondUser> other = SecondUser::Create(tmp_.path());
  if (!other.ok() && other.status().code() == StatusCode::kPermissionDenied) {
    GTEST_SKIP() << other.status().ToString();
  }
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  daemon_->set_ctl_path(other->ctl());
  const std::string other_sample = other->Readable(sample_);
  // A good job must finish well inside max_seconds on a loaded machine: under a sanitizer a 4-page job
  // beside the faults and other suites once took more than 10 s.
  const int max_seconds = kSanitized ? 30 : 10;
  ASSERT_TRUE(daemon_->Start({"--workers", "2", "--set", "socket_mode=0666", "--set",
                              "document_worker=" + TestWorkerPath(), "--set",
                              "max_seconds=" + std::to_string(max_seconds), "--set", "worker_memory=320M",
                              "--set", "max_attempts=3"}));
  const pid_t pid = daemon_->pid();
  const std::string expected = ExpectedMarkdown();
  ASSERT_FALSE(expected.empty());
  // One job first: what an idle daemon holds after a job is the baseline: its spare workers started
  // (--workers 2), the worker that parsed the job ended once it has waited its keep-idle time (5 s) for
  // the same user's next document.
  std::string first = Submit(sample_);
  ASSERT_EQ(daemon_->Ctl({"wait", first}).exit_code, 0);
  Deadline idle = Deadline::InMillis(20'000);
  while (CountChildren(pid) != 2 && !idle.Expired())
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const Counts baseline = SettledCounts(CountsOf(pid));
  ASSERT_EQ(baseline.children, 2) << baseline;

  const MonoTime start = MonoNow();
  std::map<std::string, std::string> faults;  // fault -> job id
  for (const char* f : {"segv", "hang", "alloc"}) faults[f] = Submit(FaultPdf(f));
  std::vector<std::pair<std::string, bool>> good;  // id, submitted by the other user
  for (int i = 0; i < 20; ++i) {
    const bool as_other = i % 2 == 1;
    good.emplace_back(as_other ? Submit(other_sample, other->spawn()) : Submit(sample_), as_other);
  }

  for (const auto& [fault, id] : faults) {
    RunResult w = daemon_->Ctl({"wait", id});
    EXPECT_EQ(w.exit_code, 1) << fault << ": " << w.out << w.err;
    json st = Status(id);
    EXPECT_EQ(st["state"], "failed") << fault;
    const std::string error = st.value("error", "");
    if (fault == "segv") {
      // A sanitizer's runtime catches the fault itself and ends the process with a signal of its own.
      EXPECT_NE(error.find(kSanitized ? "the document worker was killed by signal"
                                      : "the document worker was killed by signal 11 (SIGSEGV)"),
                std::string::npos)
          << error;
      EXPECT_NE(error.find("failed after 3 attempts"), std::string::npos) << error;
    } else if (fault == "hang") {
      EXPECT_NE(error.find("did not open the document within max_seconds"), std::string::npos) << error;
    } else if (!kSanitized) {
      EXPECT_NE(error.find("ran out of its memory limit"), std::string::npos) << error;
    } else {
      // Sanitizer builds leave RLIMIT_AS unset (their shadow memory needs the address space): the
      // allocation is ended by a time limit instead, the wall-clock one or the CPU one.
      EXPECT_TRUE(error.find("ran out of its memory limit") != std::string::npos ||
                  error.find("max_seconds") != std::string::npos)
          << error;
    }
  }
  // The hang is ended at max_seconds plus the 2 s grace, not later, however busy the machine.
  const double fault_seconds = std::chrono::duration<double>(MonoNow() - start).count();
  EXPECT_LT(fault_seconds, max_seconds + 50) << "the faults took " << fault_seconds << " s";

  for (size_t i = 0; i < good.size(); ++i) {
    const auto& [id, as_other] = good[i];
    ASSERT_FALSE(id.empty()) << "job " << i << " was not accepted";
    const SpawnOptions as = as_other ? other->spawn() : SpawnOptions{};
    RunResult w = daemon_->Ctl({"wait", id}, as);
    ASSERT_EQ(w.exit_code, 0) << "job " << id << ": " << w.out << w.err << "\n" << daemon_->Log();
    const std::string out = (as_other ? other->home() : tmp_.path()) + "/out" + std::to_string(i);
    RunResult f = daemon_->Ctl({"fetch", id, "-o", out}, as);
    ASSERT_EQ(f.exit_code, 0) << f.err;
    EXPECT_EQ(ReadFile(out + "/normal_4pages.md"), expected) << "job " << id;
  }

  EXPECT_EQ(daemon_->pid(), pid);
  EXPECT_EQ(::kill(pid, 0), 0) << "minerud is gone";
  EXPECT_EQ(SettledCounts(baseline), baseline) << "fds, memfds or children leaked";
  EXPECT_EQ(daemon_->Stop(), 0);
}

TEST_F(WorkerContainmentTest, TheSandboxDeniesFilesSocketsAndPrograms) {
  ASSERT_TRUE(daemon_->Start({"--set", "document_worker=" + TestWorkerPath()}));
  std::string id = Submit(FaultPdf("probe"));
  EXPECT_EQ(daemon_->Ctl({"wait", id}).exit_code, 1);
  const std::string error = Status(id).value("error", "");
  EXPECT_NE(error.find("sandbox probe:"), std::string::npos) << error;
  EXPECT_EQ(error.find("ALLOWED"), std::string::npos) << error;
  for (const char* denied : {"open=EACCES", "create=EACCES", "socket_unix=EACCES", "socket_inet=EACCES",
                             "execve=EPERM", "fork=EPERM", "kill_parent=EPERM"}) {
    EXPECT_NE(error.find(denied), std::string::npos) << denied << " in " << error;
  }
  EXPECT_FALSE(fs::exists("/tmp/minerud-test-worker-probe"));
  // The daemon says in its log how its workers are confined; a worker in a pid namespace of its own
  // sees itself as pid 1.
  const std::string log = daemon_->Log();
  EXPECT_NE(log.find("text layer in sandboxed document workers (namespaces"), std::string::npos) << log;
  const bool own_pids = log.find("pid namespace of its own") != std::string::npos;
  EXPECT_TRUE(own_pids || log.find("the daemon's pid namespace") != std::string::npos) << log;
  const size_t at = error.find(" pid=");
  ASSERT_NE(at, std::string::npos) << error;
  EXPECT_EQ(std::atoi(error.c_str() + at + 5) == 1, own_pids) << error;
}

TEST_F(WorkerContainmentTest, Kill9WithSixtyJobsInFlightLosesNoneAndRunsNoneTwice) {
  ASSERT_TRUE(daemon_->Start({"--workers", "2", "--set", "max_jobs_per_user=100"}));
  std::vector<std::string> ids;
  for (int i = 0; i < 60; ++i) ids.push_back(Submit(sample_));
  ASSERT_EQ(ids.size(), 60u);
  // Some jobs done, some running, most queued.
  Deadline some_done = Deadline::InMillis(60'000);
  while (Status(ids[2]).value("state", "") != "done" && !some_done.Expired()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  daemon_->Kill9();
  std::set<daemon::JobId> done_before;
  {
    auto spool = daemon::Spool::Open(daemon_->state_dir());
    ASSERT_TRUE(spool.ok());
    auto jobs = spool->LoadJobs();
    ASSERT_TRUE(jobs.ok());
    EXPECT_EQ(jobs->size(), 60u);
    for (const daemon::JobInfo& j : *jobs) {
      if (j.state == daemon::JobState::kDone) done_before.insert(j.id);
    }
  }
  EXPECT_GE(done_before.size(), 3u);
  EXPECT_LT(done_before.size(), 60u) << "every job finished before the kill: nothing was in flight";

  ASSERT_TRUE(daemon_->Start({"--workers", "2", "--set", "max_jobs_per_user=100"}));
  int fetched = 0;
  for (const std::string& id : ids) {
    ASSERT_EQ(daemon_->Ctl({"wait", id}).exit_code, 0) << id;
    RunResult f = daemon_->Ctl({"fetch", id, "-o", tmp_.path() + "/r" + id});
    ASSERT_EQ(f.exit_code, 0) << f.err;
    if (fs::exists(tmp_.path() + "/r" + id + "/normal_4pages.md")) ++fetched;
  }
  EXPECT_EQ(fetched, 60);
  // None ran twice: a job done before the kill never started again after the restart.
  const std::string log = daemon_->Log();
  for (daemon::JobId id : done_before) {
    EXPECT_EQ(log.find("job " + std::to_string(id) + " started"), std::string::npos)
        << "job " << id << " ran again";
  }
  auto spool = daemon::Spool::Open(daemon_->state_dir());
  ASSERT_TRUE(spool.ok());
  auto jobs = spool->LoadJobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_EQ(jobs->size(), 60u) << "one record per accepted job";
}

}  // namespace
}  // namespace mineru::testing
