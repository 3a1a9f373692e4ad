// Poison jobs with the real daemon: a job whose every start ended with minerud gone is failed at the
// next start instead of run again. The spool is prepared with the daemon's own Spool as a crash leaves
// it (the record says running, its attempts counted); the daemon is the real binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "daemon/spool.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using daemon::JobId;
using daemon::JobInfo;
using daemon::JobState;
using daemon::Spool;
using nlohmann::json;

class PoisonJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    sample_ = SamplePdf(shared);
    if (sample_.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    daemon_.emplace(tmp_.path());
  }

  // Spools the sample as a job minerud was running when it died, after `attempts` starts.
  JobId SpoolCrashedJob(const std::string& name, int64_t attempts) {
    auto spool = Spool::Open(daemon_->state_dir());
    EXPECT_TRUE(spool.ok()) << spool.status().ToString();
    if (!spool.ok()) return 0;
    std::string pdf = ReadFile(sample_);
    auto id = spool->AllocateId();
    EXPECT_TRUE(id.ok());
    JobInfo info;
    info.id = *id;
    info.uid = ::getuid();
    info.name = name;
    info.document_bytes = pdf.size();
    EXPECT_TRUE(spool->Accept(info, {reinterpret_cast<const uint8_t*>(pdf.data()), pdf.size()}).ok());
    info.state = JobState::kRunning;
    info.attempts = attempts;
    info.pages_done = 1;
    EXPECT_TRUE(spool->SaveInfo(info).ok());
    return info.id;
  }

  std::map<JobId, JobInfo> SpoolRecords() {
    std::map<JobId, JobInfo> records;
    auto spool = Spool::Open(daemon_->state_dir());
    EXPECT_TRUE(spool.ok());
    auto jobs = spool->LoadJobs();
    EXPECT_TRUE(jobs.ok());
    for (const JobInfo& j : *jobs) records[j.id] = j;
    return records;
  }

  json Status(JobId id) {
    RunResult r = daemon_->Ctl({"--json", "status", std::to_string(id)});
    std::string line = r.out.substr(0, r.out.find('\n'));
    return json::parse(line, nullptr, false);
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::string sample_;
};

TEST_F(PoisonJobTest, JobThatStoppedTheDaemonAtEveryAttemptIsFailedAndNeverRunAgain) {
  JobId poison = SpoolCrashedJob("poison.pdf", 3);  // the default max_attempts
  JobId survivor = SpoolCrashedJob("survivor.pdf", 2);
  ASSERT_NE(poison, 0u);
  ASSERT_TRUE(daemon_->Start());

  // The job below the limit runs once more and completes.
  RunResult wait = daemon_->Ctl({"wait", std::to_string(survivor)});
  EXPECT_EQ(wait.exit_code, 0) << wait.err << daemon_->Log();
  // The one at the limit is failed with the reason, without being started.
  RunResult failed = daemon_->Ctl({"wait", std::to_string(poison)});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.out.find("failed: minerud stopped while parsing this document 3 times"), std::string::npos)
      << failed.out << failed.err;
  json status = Status(poison);
  EXPECT_EQ(status["state"], "failed") << status.dump();
  EXPECT_NE(daemon_->Log().find("job " + std::to_string(survivor) + " started (attempt 3)"),
            std::string::npos)
      << daemon_->Log();
  EXPECT_EQ(daemon_->Log().find("job " + std::to_string(poison) + " started"), std::string::npos)
      << daemon_->Log();
  EXPECT_EQ(daemon_->Stop(), 0);

  // On disk: the poison job's record is final and its document gone; the survivor counted 3 starts.
  auto records = SpoolRecords();
  ASSERT_EQ(records.count(poison), 1u);
  EXPECT_EQ(records[poison].state, JobState::kFailed);
  EXPECT_EQ(records[poison].attempts, 3);
  EXPECT_FALSE(fs::exists(daemon_->state_dir() + "/jobs/" + std::to_string(poison) + "/document"));
  EXPECT_EQ(records[survivor].state, JobState::kDone);
  EXPECT_EQ(records[survivor].attempts, 3);

  // Another start does not run it either.
  ASSERT_TRUE(daemon_->Start());
  EXPECT_EQ(Status(poison)["state"], "failed");
  EXPECT_EQ(daemon_->Log().find("job " + std::to_string(poison) + " started"), std::string::npos);
  EXPECT_EQ(daemon_->Stop(), 0);
  EXPECT_EQ(SpoolRecords()[poison].attempts, 3);
}

TEST_F(PoisonJobTest, TheLimitIsTheConfigKey) {
  JobId once = SpoolCrashedJob("once.pdf", 1);
  ASSERT_TRUE(daemon_->Start({"--set", "max_attempts=1"}));
  RunResult failed = daemon_->Ctl({"wait", std::to_string(once)});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.out.find("failed: minerud stopped while parsing this document 1 time"), std::string::npos)
      << failed.out << failed.err;
  EXPECT_EQ(daemon_->Stop(), 0);
}

// A real kill -9 while jobs run: each start is counted, and the jobs run again below the limit.
TEST_F(PoisonJobTest, Kill9CountsAStartAndTheJobRunsAgainBelowTheLimit) {
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    RunResult r = daemon_->Ctl({"submit", "--detach", sample_});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ids.push_back(r.out.substr(0, r.out.find('\n')));
  }
  daemon_->Kill9();
  std::map<JobId, JobInfo> before = SpoolRecords();
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  RunResult wait = daemon_->Ctl({"wait", ids[0], ids[1], ids[2]});
  EXPECT_EQ(wait.exit_code, 0) << wait.err << daemon_->Log();
  EXPECT_EQ(daemon_->Stop(), 0);
  for (const auto& [id, after] : SpoolRecords()) {
    EXPECT_EQ(after.state, JobState::kDone);
    // Done before the kill: untouched. Otherwise: started once more than the kill left it.
    if (before[id].state == JobState::kDone) {
      EXPECT_EQ(after.attempts, before[id].attempts);
    } else {
      EXPECT_EQ(after.attempts, before[id].attempts + 1) << "job " << id;
    }
  }
}

}  // namespace
}  // namespace mineru::testing
