#include "daemon/scheduler.h"

#include <gtest/gtest.h>

#include <charconv>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "tests/daemon/temp_dir.h"

namespace mineru::daemon {
namespace {

using mineru::testing::TempDir;
using namespace std::chrono_literals;

// A backend for scheduling tests: the document text is "PAGES MS" (pages, milliseconds per page) or
// "fail"; each page sleeps, checks the cancel flag, and reports progress; the output is one file.
class PagedSleepBackend : public Backend {
 public:
  std::string_view name() const override { return "paged-sleep"; }
  Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                              const CancelFlag& cancel) override {
    std::string_view text(reinterpret_cast<const char*>(input.document.data()), input.document.size());
    if (text == "fail") return InvalidArgument("not a document");
    int64_t pages = 0, ms = 0;
    auto space = text.find(' ');
    std::from_chars(text.data(), text.data() + space, pages);
    std::from_chars(text.data() + space + 1, text.data() + text.size(), ms);
    if (input.max_pages > 0 && pages > input.max_pages) return ResourceExhausted("too many pages");
    calls_.fetch_add(1);
    for (int64_t p = 0; p < pages; ++p) {
      if (cancel.load()) return Cancelled("cancelled");
      if (input.deadline.Expired()) return DeadlineExceeded("time limit");
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      progress(p + 1, pages, nullptr);
    }
    BackendOutput out;
    out.num_pages = pages;
    out.files.push_back({input.name + ".md", "pages " + std::to_string(pages)});
    return out;
  }
  int calls() const { return calls_.load(); }

 private:
  std::atomic<int> calls_{0};
};

std::span<const uint8_t> Doc(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spool = Spool::Open(dir_.path());
    ASSERT_TRUE(spool.ok());
    spool_.emplace(std::move(*spool));
  }

  std::unique_ptr<Scheduler> Make(JobLimits limits, int workers = 1) {
    Scheduler::Options o;
    o.spool = &*spool_;
    o.backend = &backend_;
    o.limits = limits;
    o.workers = workers;
    o.watchdog = watchdog_;
    o.open_allowance = allowance_;
    o.page_allowance = allowance_;
    o.wake = [this] {
      std::lock_guard lock(mu_);
      ++wakes_;
      cv_.notify_all();
    };
    return std::make_unique<Scheduler>(o);
  }

  // Waits (on wake-ups, not by polling a sleep) until the job reaches a final state.
  JobInfo WaitFinal(Scheduler& s, JobId id) {
    std::unique_lock lock(mu_);
    for (;;) {
      auto info = s.Find(id);
      if (info && IsFinal(info->state)) return *info;
      if (!cv_.wait_for(lock, 10s, [&] {
            auto i = s.Find(id);
            return i && IsFinal(i->state);
          })) {
        ADD_FAILURE() << "job " << id << " did not finish";
        return s.Find(id).value_or(JobInfo{});
      }
    }
  }

  // Waits (on wake-ups) until the job is running.
  void WaitRunning(Scheduler& s, JobId id) {
    std::unique_lock lock(mu_);
    EXPECT_TRUE(cv_.wait_for(lock, 10s, [&] { return s.Find(id)->state == JobState::kRunning; }));
  }

  TempDir dir_;
  Watchdog* watchdog_ = nullptr;
  std::chrono::milliseconds allowance_{60'000};
  std::optional<Spool> spool_;
  PagedSleepBackend backend_;
  std::mutex mu_;
  std::condition_variable cv_;
  int wakes_ = 0;
};

TEST_F(SchedulerTest, RunsJobAndKeepsResults) {
  auto s = Make({});
  s->Start();
  auto job = s->Submit(1000, "a.pdf", Doc("3 1"));
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  JobInfo done = WaitFinal(*s, job->id);
  EXPECT_EQ(done.state, JobState::kDone);
  EXPECT_EQ(done.pages_done, 3);
  EXPECT_EQ(done.pages_total, 3);
  EXPECT_EQ(done.attempts, 1);
  auto files = s->Results(job->id, /*consume=*/false);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  EXPECT_EQ((*files)[0].path, "a.pdf.md");
  EXPECT_EQ((*files)[0].data, "pages 3");
  // Events: at least one progress and exactly one finish for this job.
  int finished = 0, progress = 0;
  for (const JobEvent& e : s->TakeEvents()) {
    if (e.info.id != job->id) continue;
    (e.kind == JobEvent::Kind::kFinished ? finished : progress)++;
  }
  EXPECT_EQ(finished, 1);
  EXPECT_GE(progress, 1);
  // Consuming the results deletes them; a second fetch says so.
  ASSERT_TRUE(s->Results(job->id, true).ok());
  EXPECT_EQ(s->Results(job->id, false).status().code(), StatusCode::kNotFound);
}

TEST_F(SchedulerTest, FailedJobKeepsItsError) {
  auto s = Make({});
  s->Start();
  auto job = s->Submit(1, "bad.pdf", Doc("fail"));
  ASSERT_TRUE(job.ok());
  JobInfo done = WaitFinal(*s, job->id);
  EXPECT_EQ(done.state, JobState::kFailed);
  EXPECT_EQ(done.error_code, StatusCode::kInvalidArgument);
  EXPECT_NE(done.error.find("not a document"), std::string::npos);
  EXPECT_EQ(s->Results(job->id, false).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SchedulerTest, PerUserAndGlobalLimitsAnswerBusy) {
  JobLimits limits;
  limits.max_jobs_per_user = 2;
  limits.max_jobs_queued = 3;
  auto s = Make(limits);  // not started: jobs stay queued
  ASSERT_TRUE(s->Submit(1, "a", Doc("1 0")).ok());
  ASSERT_TRUE(s->Submit(1, "b", Doc("1 0")).ok());
  auto third = s->Submit(1, "c", Doc("1 0"));
  EXPECT_EQ(third.status().code(), StatusCode::kBusy);
  ASSERT_TRUE(s->Submit(2, "d", Doc("1 0")).ok());
  EXPECT_EQ(s->Submit(3, "e", Doc("1 0")).status().code(), StatusCode::kBusy);
  EXPECT_EQ(s->Stats().rejected_busy_total, 2);
  EXPECT_EQ(s->Stats().queued, 3);
  // Cancelling one frees a slot.
  ASSERT_TRUE(s->Cancel(1).ok());
  EXPECT_TRUE(s->Submit(3, "e", Doc("1 0")).ok());
}

TEST_F(SchedulerTest, ByteLimits) {
  JobLimits limits;
  limits.max_document_bytes = 8;
  limits.max_bytes_per_user = 10;
  auto s = Make(limits);
  EXPECT_EQ(s->Submit(1, "big", Doc("123456789")).status().code(), StatusCode::kResourceExhausted);
  ASSERT_TRUE(s->Submit(1, "a", Doc("1 000000")).ok());  // 8 bytes
  EXPECT_EQ(s->Submit(1, "b", Doc("1 0000")).status().code(), StatusCode::kBusy);
  EXPECT_TRUE(s->Submit(2, "b", Doc("1 0000")).ok());
  EXPECT_EQ(s->Submit(1, "", Doc("1 0")).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s->Submit(1, "x", Doc("")).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SchedulerTest, CancelRunningJobStopsWithinAPage) {
  auto s = Make({});
  s->Start();
  auto job = s->Submit(1, "slow", Doc("1000 20"));
  ASSERT_TRUE(job.ok());
  // Wait until it runs.
  {
    std::unique_lock lock(mu_);
    ASSERT_TRUE(cv_.wait_for(lock, 10s, [&] { return s->Find(job->id)->pages_done >= 1; }));
  }
  ASSERT_TRUE(s->Cancel(job->id).ok());
  JobInfo done = WaitFinal(*s, job->id);
  EXPECT_EQ(done.state, JobState::kCancelled);
  EXPECT_LT(done.pages_done, 1000);
  EXPECT_EQ(s->Cancel(job->id).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s->Cancel(999).code(), StatusCode::kNotFound);
}

TEST_F(SchedulerTest, PageLimitAndTimeLimitFailTheJob) {
  JobLimits limits;
  limits.max_pages_per_document = 5;
  auto s = Make(limits);
  s->Start();
  auto many = s->Submit(1, "many", Doc("6 0"));
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(WaitFinal(*s, many->id).error_code, StatusCode::kResourceExhausted);
  limits.max_pages_per_document = 100;
  limits.max_seconds_per_document = 1;
  s->SetLimits(limits);
  auto slow = s->Submit(1, "slow", Doc("100 30"));
  ASSERT_TRUE(slow.ok());
  JobInfo done = WaitFinal(*s, slow->id);
  EXPECT_EQ(done.state, JobState::kFailed);
  EXPECT_EQ(done.error_code, StatusCode::kDeadlineExceeded);
}

TEST_F(SchedulerTest, InterruptedJobRunsAgainAfterRecoverAndFinishedOnesAreKept) {
  JobId done_id = 0, running_id = 0, queued_id = 0;
  {
    auto s = Make({});
    s->Start();
    auto first = s->Submit(1, "first", Doc("1 0"));
    ASSERT_TRUE(first.ok());
    done_id = first->id;
    ASSERT_EQ(WaitFinal(*s, done_id).state, JobState::kDone);
    auto slow = s->Submit(1, "slow", Doc("1000 10"));
    ASSERT_TRUE(slow.ok());
    running_id = slow->id;
    auto queued = s->Submit(2, "queued", Doc("2 0"));
    ASSERT_TRUE(queued.ok());
    queued_id = queued->id;
    {
      std::unique_lock lock(mu_);
      ASSERT_TRUE(cv_.wait_for(lock, 10s, [&] { return s->Find(running_id)->pages_done >= 1; }));
    }
    // Destruction interrupts the running job: it must not be recorded as cancelled.
  }
  auto s = Make({});
  ASSERT_TRUE(s->Recover().ok());
  EXPECT_EQ(s->Find(done_id)->state, JobState::kDone);
  EXPECT_EQ(s->Find(running_id)->state, JobState::kQueued);
  EXPECT_EQ(s->Find(running_id)->attempts, 0) << "a clean stop gives the attempt back";
  EXPECT_EQ(s->Find(queued_id)->state, JobState::kQueued);
  ASSERT_TRUE(s->Results(done_id, false).ok());
  s->Start();
  ASSERT_TRUE(s->Cancel(running_id).ok());  // not worth a 10 s wait; cancelling a recovered job works
  EXPECT_EQ(WaitFinal(*s, queued_id).state, JobState::kDone);
  EXPECT_EQ(WaitFinal(*s, running_id).state, JobState::kCancelled);
  // A new job gets a fresh id.
  auto next = s->Submit(1, "next", Doc("1 0"));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_GT(next->id, queued_id);
}

// As a crash leaves a job: its record says running, its attempts counted.
JobInfo SpoolAsCrashed(Spool& spool, const std::string& doc, int64_t attempts) {
  JobInfo info;
  info.id = *spool.AllocateId();
  info.uid = 1;
  info.name = "crashed";
  info.document_bytes = doc.size();
  EXPECT_TRUE(spool.Accept(info, Doc(doc)).ok());
  info.state = JobState::kRunning;
  info.attempts = attempts;
  EXPECT_TRUE(spool.SaveInfo(info).ok());
  return info;
}

TEST_F(SchedulerTest, RecoverFailsJobsStartedMaxAttemptsTimesAndRunsTheOthers) {
  JobId poison = SpoolAsCrashed(*spool_, "1 0", 2).id;
  JobId below = SpoolAsCrashed(*spool_, "1 0", 1).id;
  JobLimits limits;
  limits.max_attempts = 2;
  {
    auto s = Make(limits);
    ASSERT_TRUE(s->Recover().ok());
    JobInfo failed = *s->Find(poison);
    EXPECT_EQ(failed.state, JobState::kFailed);
    EXPECT_EQ(failed.error, "minerud stopped while parsing this document 2 times");
    EXPECT_GT(failed.finished_ms, 0);
    EXPECT_EQ(s->Stats().queued, 1);
    s->Start();
    JobInfo done = WaitFinal(*s, below);
    EXPECT_EQ(done.state, JobState::kDone);
    EXPECT_EQ(done.attempts, 2);
    EXPECT_EQ(s->Find(poison)->state, JobState::kFailed);
  }
  EXPECT_EQ(backend_.calls(), 1) << "the failed job never reached the backend";
  EXPECT_EQ(spool_->MapDocument(poison).status().code(), StatusCode::kNotFound);
  // Durable: the next start finds it failed, whatever the limit is now.
  limits.max_attempts = 10;
  auto s = Make(limits);
  ASSERT_TRUE(s->Recover().ok());
  EXPECT_EQ(s->Find(poison)->state, JobState::kFailed);
  EXPECT_EQ(s->Find(poison)->attempts, 2);
}

TEST_F(SchedulerTest, AWorkerStuckInAPageIsOverdueWhileAnotherIdles) {
  Watchdog watchdog;
  watchdog_ = &watchdog;
  allowance_ = 100ms;
  auto s = Make({}, 2);
  s->Start();
  auto job = s->Submit(1, "slow", Doc("1 1500"));  // one page of 1.5 s: 15 allowances
  ASSERT_TRUE(job.ok());
  WaitRunning(*s, job->id);
  std::this_thread::sleep_for(500ms);
  std::vector<std::string> late = watchdog.Overdue(MonoNowNanos());
  ASSERT_EQ(late.size(), 1u);
  EXPECT_NE(late[0].find("worker on job " + std::to_string(job->id)), std::string::npos) << late[0];
  EXPECT_EQ(WaitFinal(*s, job->id).state, JobState::kDone);
  EXPECT_TRUE(watchdog.Overdue(MonoNowNanos()).empty());
  EXPECT_EQ(watchdog.size(), 0u) << "a worker leaves the watchdog when its job ends";
}

TEST_F(SchedulerTest, AJobLongerThanItsAllowanceIsNeverOverdueWhilePagesProgress) {
  Watchdog watchdog;
  watchdog_ = &watchdog;
  allowance_ = 1000ms;  // each page re-arms it: 1 s + 50 ms per page, against pages of 200 ms
  auto s = Make({}, 2);
  s->Start();
  auto job = s->Submit(1, "long", Doc("15 200"));  // 3 s in all
  ASSERT_TRUE(job.ok());
  WaitRunning(*s, job->id);
  int samples = 0;
  while (!IsFinal(s->Find(job->id)->state)) {
    EXPECT_TRUE(watchdog.Overdue(MonoNowNanos()).empty()) << "at sample " << samples;
    ++samples;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_GT(samples, 20);
  EXPECT_EQ(s->Find(job->id)->state, JobState::kDone);
}

TEST_F(SchedulerTest, DrainStopsNewWorkAndRejectsSubmissions) {
  auto s = Make({});
  s->BeginDrain();
  s->Start();
  EXPECT_EQ(s->Submit(1, "a", Doc("1 0")).status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(s->Idle());
}

TEST_F(SchedulerTest, RetentionExpiresFinishedJobs) {
  JobLimits limits;
  limits.result_retention_ms = 1000;
  auto s = Make(limits);
  s->Start();
  auto job = s->Submit(1, "a", Doc("1 0"));
  ASSERT_TRUE(job.ok());
  JobInfo done = WaitFinal(*s, job->id);
  EXPECT_EQ(s->ExpireFinished(done.finished_ms + 999), 0);
  EXPECT_EQ(s->ExpireFinished(done.finished_ms + 1000), 1);
  EXPECT_FALSE(s->Find(job->id).has_value());
  EXPECT_TRUE(spool_->LoadJobs()->empty());
}

TEST_F(SchedulerTest, ParallelWorkersRunJobsConcurrently) {
  auto s = Make({}, 4);
  s->Start();
  std::vector<JobId> ids;
  for (int i = 0; i < 8; ++i) {
    auto job = s->Submit(static_cast<uid_t>(i % 3), "j" + std::to_string(i), Doc("3 2"));
    ASSERT_TRUE(job.ok());
    ids.push_back(job->id);
  }
  for (JobId id : ids) EXPECT_EQ(WaitFinal(*s, id).state, JobState::kDone);
  EXPECT_EQ(backend_.calls(), 8);
  EXPECT_EQ(s->List(1).size(), 3u);
  EXPECT_EQ(s->List(std::nullopt).size(), 8u);
  EXPECT_LT(s->HeartbeatAgeMs(), 5000);
}

}  // namespace
}  // namespace mineru::daemon
