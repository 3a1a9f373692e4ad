// The C API's jobs, events, stats, version and size-versioned structs (client/c_api*.cc) against the
// real minerud binary.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mineru/client_c.h"
#include "mineru/version.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/support/shared_data.h"

namespace mineru::client {
namespace {

using mineru::testing::DaemonHarness;
using mineru::testing::TempDir;

// A size-versioned struct as a C caller starts it: `T t = {sizeof t};`.
template <typename T>
T Sized() {
  T t{};
  t.struct_size = sizeof t;
  return t;
}

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    std::string sample = mineru::testing::SamplePdf(shared);
    if (sample.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    pdf_ = mineru::testing::ReadFile(sample);
    daemon_.emplace(tmp_.path());
    ASSERT_TRUE(daemon_->Start());
  }
  void TearDown() override {
    if (c_ != nullptr) mineru_client_close(c_);
  }

  mineru_client* Connect(unsigned flags = 0) {
    mineru_client* c = nullptr;
    EXPECT_EQ(mineru_client_connect_with(daemon_->socket_path().c_str(), flags, &c), 0)
        << mineru_client_last_error(nullptr);
    return c;
  }

  uint64_t Submit(mineru_client* c, const char* name, int detach) {
    mineru_submit_options o;
    EXPECT_EQ(mineru_submit_options_init(&o, sizeof o), 0);
    o.name = name;
    o.detach = detach;
    uint64_t job = 0;
    EXPECT_EQ(mineru_client_submit_opts(c, pdf_.data(), pdf_.size(), &o, &job), 0)
        << mineru_client_last_error(c);
    return job;
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::string pdf_;
  mineru_client* c_ = nullptr;
};

TEST_F(CApiTest, VersionMacrosMatchTheLibraryAndTheDaemon) {
  EXPECT_STREQ(mineru_version(), MINERU_VERSION_STRING);
  EXPECT_EQ(mineru_version_number(), static_cast<uint32_t>(MINERU_VERSION_NUMBER));
  EXPECT_EQ(MINERU_VERSION_NUMBER,
            MINERU_VERSION_MAJOR * 10000 + MINERU_VERSION_MINOR * 100 + MINERU_VERSION_PATCH);
  EXPECT_EQ(std::to_string(MINERU_VERSION_MAJOR) + "." + std::to_string(MINERU_VERSION_MINOR) + "." +
                std::to_string(MINERU_VERSION_PATCH),
            MINERU_VERSION_STRING);
  c_ = Connect();
  ASSERT_NE(c_, nullptr);
  EXPECT_STREQ(mineru_client_daemon_version(c_), MINERU_VERSION_STRING);
  EXPECT_EQ(std::string(mineru_client_socket_path(c_)), daemon_->socket_path());
  double rtt_us = -1;
  ASSERT_EQ(mineru_client_ping(c_, &rtt_us), 0);
  EXPECT_GT(rtt_us, 0.0);
}

TEST_F(CApiTest, AFailedConnectKeepsItsMessageForTheThread) {
  mineru_client* c = nullptr;
  const std::string nobody = tmp_.path() + "/nobody.sock";
  EXPECT_EQ(mineru_client_connect(nobody.c_str(), &c), -MINERU_ERR_UNAVAILABLE);
  EXPECT_EQ(c, nullptr);
  const std::string message = mineru_client_last_error(nullptr);
  EXPECT_NE(message.find(nobody), std::string::npos) << message;
  // Another thread's failure is its own; a successful connect clears this thread's.
  std::string other;
  std::thread([&] {
    mineru_client* d = nullptr;
    EXPECT_LT(mineru_client_connect((tmp_.path() + "/other.sock").c_str(), &d), 0);
    other = mineru_client_last_error(nullptr);
  }).join();
  EXPECT_NE(other.find("other.sock"), std::string::npos) << other;
  EXPECT_EQ(mineru_client_last_error(nullptr), message);
  c_ = Connect();
  EXPECT_STREQ(mineru_client_last_error(nullptr), "");
}

TEST_F(CApiTest, SizeVersionedStructsReadAndWriteOnlyWhatTheCallerHas) {
  // Options: too short refused; a longer (newer) struct is accepted while its extra bytes are zero.
  struct Newer {
    mineru_connect_options o;
    uint64_t future_option;
  } newer;
  std::memset(&newer, 0, sizeof newer);
  ASSERT_EQ(mineru_connect_options_init(&newer.o, sizeof newer), 0);
  EXPECT_EQ(newer.o.struct_size, sizeof newer);
  EXPECT_EQ(newer.o.connect_timeout_ms, 5000);
  newer.o.socket_path = daemon_->socket_path().c_str();
  ASSERT_EQ(mineru_client_connect_opts(&newer.o, &c_), 0) << mineru_client_last_error(nullptr);
  newer.future_option = 1;
  mineru_client* refused = nullptr;
  EXPECT_EQ(mineru_client_connect_opts(&newer.o, &refused), -MINERU_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mineru_client_last_error(nullptr)).find("unknown option"), std::string::npos);
  mineru_connect_options short_options;
  EXPECT_EQ(mineru_connect_options_init(&short_options, sizeof(size_t)), -MINERU_ERR_INVALID_ARGUMENT);
  short_options.struct_size = sizeof(size_t);
  EXPECT_EQ(mineru_client_connect_opts(&short_options, &refused), -MINERU_ERR_INVALID_ARGUMENT);

  mineru_submit_options so;
  ASSERT_EQ(mineru_submit_options_init(&so, sizeof so), 0);
  EXPECT_EQ(so.last_page, UINT32_MAX);
  EXPECT_EQ(so.backend, nullptr);
  uint64_t job = 0;
  EXPECT_EQ(mineru_client_submit_opts(c_, pdf_.data(), pdf_.size(), &so, &job), -MINERU_ERR_INVALID_ARGUMENT)
      << "a name is required";
  // Page range and backend reach the daemon.
  so.name = "ranged";
  so.first_page = 1;
  so.last_page = 2;
  so.backend = "text";
  ASSERT_EQ(mineru_client_submit_opts(c_, pdf_.data(), pdf_.size(), &so, &job), 0)
      << mineru_client_last_error(c_);
  int state = -1;
  ASSERT_EQ(mineru_client_wait(c_, job, nullptr, nullptr, 60'000, &state), 0);
  EXPECT_EQ(state, MINERU_JOB_DONE);

  // Output: a newer caller's struct gets this library's members; its own extra member is untouched.
  struct NewerStatus {
    mineru_job_status s;
    uint64_t future_member;
  } status;
  std::memset(&status, 0, sizeof status);
  status.s.struct_size = sizeof status;
  status.future_member = 0x5eed;
  ASSERT_EQ(mineru_client_status(c_, job, &status.s), 0) << mineru_client_last_error(c_);
  EXPECT_EQ(status.s.struct_size, sizeof status);
  EXPECT_EQ(status.future_member, 0x5eedu);
  EXPECT_EQ(status.s.job_id, job);
  EXPECT_EQ(status.s.pages_total, 2u);
  EXPECT_STREQ(status.s.name, "ranged");
  mineru_job_status too_short;
  too_short.struct_size = sizeof(size_t);
  EXPECT_EQ(mineru_client_status(c_, job, &too_short), -MINERU_ERR_INVALID_ARGUMENT);
}

TEST_F(CApiTest, StatusListCancelAndStats) {
  daemon_->Stop();
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));  // one worker: later jobs wait in the queue
  c_ = Connect();
  ASSERT_NE(c_, nullptr);
  std::vector<uint64_t> jobs;
  for (const char* name : {"a", "b", "c", "d"}) jobs.push_back(Submit(c_, name, 1));
  ASSERT_EQ(mineru_client_cancel(c_, jobs[3]), 0) << mineru_client_last_error(c_);
  auto s = Sized<mineru_job_status>();
  ASSERT_EQ(mineru_client_status(c_, jobs[3], &s), 0);
  EXPECT_EQ(s.state, MINERU_JOB_CANCELLED);
  EXPECT_EQ(s.error_code, -MINERU_ERR_CANCELLED);
  EXPECT_STREQ(s.name, "d");
  EXPECT_EQ(s.owner_uid, ::geteuid());
  EXPECT_EQ(s.document_bytes, pdf_.size());

  uint64_t cancelled[8] = {};
  size_t count = 0;
  ASSERT_EQ(mineru_client_cancel_all(c_, cancelled, 1, &count), 0) << mineru_client_last_error(c_);
  // Job d is over already; of a, b, c (about a second each, one at a time) at least b and c waited.
  EXPECT_GE(count, 2u);
  EXPECT_LE(count, 3u);
  EXPECT_NE(cancelled[0], jobs[3]);
  EXPECT_EQ(cancelled[1], 0u) << "only `capacity` ids are written";
  // A running job stops at its next page; once every job has ended there is nothing to cancel.
  for (uint64_t job : jobs) {
    int state = -1;
    ASSERT_EQ(mineru_client_wait(c_, job, nullptr, nullptr, 60'000, &state), 0)
        << mineru_client_last_error(c_);
    EXPECT_TRUE(state == MINERU_JOB_DONE || state == MINERU_JOB_CANCELLED) << state;
  }
  EXPECT_EQ(mineru_client_cancel_all(c_, nullptr, 0, &count), 0);
  EXPECT_EQ(count, 0u) << "nothing is left to cancel";
  EXPECT_EQ(mineru_client_cancel_all(c_, nullptr, 1, &count), -MINERU_ERR_INVALID_ARGUMENT);

  mineru_job_list* list = nullptr;
  ASSERT_EQ(mineru_client_list(c_, 0, &list), 0);
  ASSERT_EQ(mineru_job_list_count(list), 4u);
  std::set<uint64_t> listed;
  for (size_t i = 0; i < mineru_job_list_count(list); ++i) {
    auto j = Sized<mineru_job_status>();
    ASSERT_EQ(mineru_job_list_get(list, i, &j), 0);
    listed.insert(j.job_id);
    EXPECT_TRUE(j.state == MINERU_JOB_DONE || j.state == MINERU_JOB_CANCELLED) << j.job_id << " " << j.state;
  }
  EXPECT_EQ(listed, std::set<uint64_t>(jobs.begin(), jobs.end()));
  auto none = Sized<mineru_job_status>();
  EXPECT_EQ(mineru_job_list_get(list, 4, &none), -MINERU_ERR_OUT_OF_RANGE);
  mineru_job_list_free(list);
  EXPECT_EQ(mineru_client_status(c_, 987654, &s), -MINERU_ERR_NOT_FOUND);
  EXPECT_STREQ(mineru_client_last_error(c_), "no job 987654");

  mineru_stats* stats = nullptr;
  ASSERT_EQ(mineru_client_stats(c_, &stats), 0);
  ASSERT_GT(mineru_stats_counter_count(stats), 0u);
  const char* first_name = nullptr;
  double first_value = -1, by_name = -2;
  ASSERT_EQ(mineru_stats_counter_get(stats, 0, &first_name, &first_value), 0);
  ASSERT_EQ(mineru_stats_counter(stats, first_name, &by_name), 0);
  EXPECT_EQ(first_value, by_name);
  double queued = -1;
  ASSERT_EQ(mineru_stats_counter(stats, "jobs_queued", &queued), 0);
  EXPECT_EQ(queued, 0.0);
  EXPECT_EQ(mineru_stats_counter(stats, "no_such_counter", &queued), -MINERU_ERR_NOT_FOUND);
  for (size_t i = 0; i < mineru_stats_tier_count(stats); ++i) {
    auto t = Sized<mineru_tier_stats>();
    ASSERT_EQ(mineru_stats_tier_get(stats, i, &t), 0);
    EXPECT_GE(t.peak_bytes, t.used_bytes) << t.tier;
  }
  mineru_stats_free(stats);
}

TEST_F(CApiTest, EventsThroughThePollableFd) {
  c_ = Connect(MINERU_CONNECT_PAGE_RESULTS);
  ASSERT_NE(c_, nullptr);
  const uint64_t job = Submit(c_, "events", 0);
  // A second connection follows a detached job of the first one's user through Watch.
  mineru_client* watcher = Connect();
  ASSERT_NE(watcher, nullptr);
  const uint64_t detached = Submit(c_, "detached", 1);
  ASSERT_EQ(mineru_client_watch(watcher, detached), 0) << mineru_client_last_error(watcher);

  std::vector<uint32_t> pages, progress;
  bool done = false;
  while (!done) {
    pollfd pfd{mineru_client_fd(c_), POLLIN, 0};
    ASSERT_EQ(poll(&pfd, 1, 60'000), 1) << "no event within a minute";
    auto ev = Sized<mineru_event>();
    int rc;
    while ((rc = mineru_client_next_event(c_, 0, &ev)) == 1) {
      if (ev.job_id != job) continue;  // the detached job sends nothing here
      if (ev.type == MINERU_EVENT_PAGE) {
        ASSERT_NE(ev.page, nullptr);
        EXPECT_GT(ev.page->markdown_size, 0u);
        pages.push_back(ev.page->page_index);
      } else if (ev.type == MINERU_EVENT_PROGRESS) {
        progress.push_back(ev.pages_done);
      } else {
        EXPECT_EQ(ev.type, MINERU_EVENT_DONE) << ev.error;
        EXPECT_EQ(ev.pages_total, 4u);
        done = true;
      }
    }
    ASSERT_EQ(rc, 0) << mineru_client_last_error(c_);
  }
  EXPECT_EQ(pages, (std::vector<uint32_t>{0, 1, 2, 3}));
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), 4u);
  for (size_t i = 1; i < progress.size(); ++i) EXPECT_LE(progress[i - 1], progress[i]);
  // The job's end was taken as an event; a wait now ends at once on its status.
  int state = -1;
  ASSERT_EQ(mineru_client_wait(c_, job, nullptr, nullptr, 5'000, &state), 0) << mineru_client_last_error(c_);
  EXPECT_EQ(state, MINERU_JOB_DONE);

  // The watcher sees the detached job end.
  bool detached_done = false;
  auto ev = Sized<mineru_event>();
  while (!detached_done) {
    ASSERT_EQ(mineru_client_next_event(watcher, 60'000, &ev), 1) << mineru_client_last_error(watcher);
    EXPECT_EQ(ev.job_id, detached);
    EXPECT_NE(ev.type, MINERU_EVENT_PAGE) << "no page results asked for";
    detached_done = ev.type == MINERU_EVENT_DONE;
  }
  // Nothing more comes; a zero timeout does not wait.
  EXPECT_EQ(mineru_client_next_event(watcher, 0, &ev), 0);
  EXPECT_EQ(mineru_client_watch(watcher, 987654), -MINERU_ERR_NOT_FOUND);
  mineru_client_close(watcher);
}

}  // namespace
}  // namespace mineru::client
