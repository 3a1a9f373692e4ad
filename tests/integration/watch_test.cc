// The real minerud: a connection that did not submit a job follows it with WatchRequest and gets its
// events as they happen (no status polling); a job it may not see is "no job N"; and a document being
// spooled (its spool thread held at the disk by the test with ptrace: syscall_gate.h) does not stop the
// loop from answering everyone else, nor a SIGTERM drain from finishing it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "shm/channel.h"
#include "shm/frame.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/syscall_gate.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// A raw protocol connection (no result ring needed to follow events).
Result<shm::Channel> ConnectRaw(const std::string& socket, shm::HelloReply* reply) {
  MINERU_ASSIGN_OR_RETURN(shm::Channel ch, shm::Channel::Connect(socket, Deadline::InMillis(10'000)));
  shm::Hello hello;
  hello.client_name = "watch_test";
  MINERU_RETURN_IF_ERROR(ch.Send(hello, {}, Deadline::InMillis(10'000)));
  MINERU_ASSIGN_OR_RETURN(shm::ReceivedMessage got, ch.Receive(Deadline::InMillis(10'000)));
  auto* r = std::get_if<shm::HelloReply>(&got.message);
  if (r == nullptr) return DataLoss("no HelloReply");
  *reply = *r;
  return ch;
}

class WatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    sample_ = SamplePdf(shared);
    big_ = (shared / "corpus/docling/pdf/redp5110_sampled.pdf").string();  // 18 pages
    if (sample_.empty() || !fs::exists(big_)) GTEST_SKIP() << "sample PDFs missing from ../shared/corpus";
    daemon_.emplace(tmp_.path());
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::string sample_;
  std::string big_;
};

TEST_F(WatchTest, ASecondConnectionFollowsAJobItDidNotSubmit) {
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  // Two long jobs on one worker: the second is queued when the watch begins.
  std::string first = FirstLine(daemon_->Ctl({"submit", "--detach", big_}).out);
  std::string second = FirstLine(daemon_->Ctl({"submit", "--detach", big_}).out);
  ASSERT_FALSE(second.empty());
  const uint64_t job = std::stoull(second);

  shm::HelloReply hello;
  auto ch = ConnectRaw(daemon_->socket_path(), &hello);
  ASSERT_TRUE(ch.ok()) << ch.status().ToString();
  ASSERT_TRUE(hello.capabilities & shm::kCapWatchJobs);
  ASSERT_TRUE(ch->Send(shm::WatchRequest{5, job}, {}, Deadline::InMillis(10'000)).ok());

  // The reply, then only pushed events until the job ends: nothing is asked for again.
  bool replied = false, done = false;
  uint32_t last_done = 0, progress_events = 0;
  while (!done) {
    auto got = ch->Receive(Deadline::InMillis(300'000));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (auto* r = std::get_if<shm::WatchReply>(&got->message)) {
      ASSERT_FALSE(replied);
      replied = true;
      EXPECT_EQ(r->request_id, 5u);
      EXPECT_EQ(r->job.job_id, job);
      ASSERT_TRUE(r->job.state == shm::JobState::kQueued || r->job.state == shm::JobState::kRunning)
          << "the job was to wait behind " << first;
      last_done = r->job.pages_done;
    } else if (auto* p = std::get_if<shm::PageProgress>(&got->message)) {
      ASSERT_TRUE(replied) << "events come after the WatchReply";
      ASSERT_EQ(p->job_id, job);
      EXPECT_GE(p->pages_done, last_done);
      last_done = p->pages_done;
      ++progress_events;
    } else if (auto* d = std::get_if<shm::JobDone>(&got->message)) {
      ASSERT_TRUE(replied);
      EXPECT_EQ(d->job_id, job);
      EXPECT_EQ(d->pages_total, 18u);
      done = true;
    } else {
      FAIL() << "unexpected " << shm::MessageTypeName(shm::TypeOf(got->message));
    }
  }
  EXPECT_EQ(last_done, 18u);
  EXPECT_GE(progress_events, 2u) << "page progress is streamed to the watcher";

  // A job that does not exist: NotFound, exactly like status.
  ASSERT_TRUE(ch->Send(shm::WatchRequest{6, 987654}, {}, Deadline::InMillis(10'000)).ok());
  auto err = ch->Receive(Deadline::InMillis(10'000));
  ASSERT_TRUE(err.ok());
  auto* e = std::get_if<shm::ErrorReply>(&err->message);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->request_id, 6u);
  EXPECT_EQ(e->code, StatusCode::kNotFound);
  EXPECT_EQ(e->message, "no job 987654");
}

TEST_F(WatchTest, CtlWaitOnAnotherConnectionsJobShowsItsProgress) {
  ASSERT_TRUE(daemon_->Start({"--workers", "1"}));
  std::string first = FirstLine(daemon_->Ctl({"submit", "--detach", big_}).out);
  std::string second = FirstLine(daemon_->Ctl({"submit", "--detach", big_}).out);
  RunResult wait = daemon_->Ctl({"--json", "wait", second});
  ASSERT_EQ(wait.exit_code, 0) << wait.err;
  std::istringstream in(wait.out);
  std::string line;
  int progress = 0;
  nlohmann::json last;
  while (std::getline(in, line)) {
    last = nlohmann::json::parse(line);
    if (last.value("event", "") == "progress") ++progress;
  }
  EXPECT_GE(progress, 2) << wait.out;
  EXPECT_EQ(last["state"], "done") << wait.out;
  RunResult missing = daemon_->Ctl({"wait", "987654"});
  EXPECT_EQ(missing.exit_code, 65);
  EXPECT_EQ(missing.err, "mineructl: no job 987654\n");
}

TEST_F(WatchTest, TheLoopAnswersWhileADocumentIsBeingSpooled) {
  ASSERT_TRUE(daemon_->Start());

  // Client A submits; its document is held "on the disk": the spool thread stopped at its first fsync.
  auto gate = SyscallGate::Attach(daemon_->pid(), "minerud-spool");
  ASSERT_TRUE(gate.ok()) << gate.status().ToString();
  const std::string a_out = tmp_.path() + "/a.out";
  pid_t a = Spawn({MineructlPath(), "--socket", daemon_->socket_path(), "submit", "--detach", sample_}, {},
                  a_out, "");
  ASSERT_TRUE((*gate)->HoldAtNextSync(Deadline::InMillis(60'000)))
      << "the spool thread never reached the disk";

  // Meanwhile client B is answered: the loop is not inside the write.
  RunResult b = daemon_->Ctl({"--json", "daemon-status"}, {}, 30'000);
  EXPECT_EQ(b.exit_code, 0) << b.err;
  RunResult list = daemon_->Ctl({"--json", "list"}, {}, 30'000);
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_TRUE(list.out.empty()) << "the job is not visible before it is durable: " << list.out;
  EXPECT_EQ(WaitExit(a, 0), -1) << "A has no answer while its document is being written";

  // Let the write go: A gets its job id, the job is there.
  (*gate)->Release();
  ASSERT_EQ(WaitExit(a, 60'000), 0);
  std::string id = FirstLine(ReadFile(a_out));
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(daemon_->Ctl({"wait", id}).exit_code, 0);

  // A SIGTERM drain waits for a write in flight: the job is accepted, spooled, and kept for the next
  // start.
  const std::string c_out = tmp_.path() + "/c.out";
  gate = SyscallGate::Attach(daemon_->pid(), "minerud-spool");
  ASSERT_TRUE(gate.ok()) << gate.status().ToString();
  pid_t c = Spawn({MineructlPath(), "--socket", daemon_->socket_path(), "submit", "--detach", sample_}, {},
                  c_out, "");
  ASSERT_TRUE((*gate)->HoldAtNextSync(Deadline::InMillis(60'000)));
  ASSERT_EQ(::kill(daemon_->pid(), SIGTERM), 0);
  ASSERT_TRUE(daemon_->WaitNotify("STOPPING=1"));
  EXPECT_EQ(WaitExit(c, 0), -1);
  (*gate)->Release();
  EXPECT_EQ(WaitExit(c, 60'000), 0);
  std::string kept = FirstLine(ReadFile(c_out));
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(daemon_->Stop(/*sig=*/0), 0) << "the drain ends by itself once the write is done";
  ASSERT_TRUE(daemon_->Start());
  RunResult after = daemon_->Ctl({"wait", kept});
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

}  // namespace
}  // namespace mineru::testing
