// SpoolWriter: documents are made durable on its thread, completions come back in order, the
// reservation holds the limits while a write is in flight, a drain refuses writes not yet started.
#include "daemon/spool_writer.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "shm/document_buffer.h"
#include "tests/daemon/temp_dir.h"

namespace mineru::daemon {
namespace {

using mineru::testing::TempDir;

// Holds the writer thread before each write until the test opens the gate.
class Gate {
 public:
  void Pass() {
    std::unique_lock lock(mu_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  void WaitForWriter() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return waiting_ > 0; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;    // Guarded by mu_.
  bool open_ = false;  // Guarded by mu_.
};

shm::SealedDocument Sealed(const std::string& text) {
  auto bytes = std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  auto buffer = shm::DocumentBuffer::CopyOf(bytes);
  EXPECT_TRUE(buffer.ok());
  auto fd = buffer->Seal();
  EXPECT_TRUE(fd.ok());
  auto doc = shm::SealedDocument::Adopt(std::move(*fd), text.size(), 1 << 20);
  EXPECT_TRUE(doc.ok()) << doc.status().ToString();
  return std::move(*doc);
}

class SpoolWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spool = Spool::Open(dir_.path());
    ASSERT_TRUE(spool.ok());
    spool_.emplace(std::move(*spool));
    Scheduler::Options so;
    so.spool = &*spool_;
    so.limits.max_jobs_per_user = 1;
    scheduler_ = std::make_unique<Scheduler>(std::move(so));
  }

  std::unique_ptr<SpoolWriter> MakeWriter(std::function<void()> before_write = {}) {
    SpoolWriter::Options wo;
    wo.scheduler = scheduler_.get();
    wo.wake = [this] {
      std::lock_guard lock(mu_);
      ++wakes_;
      cv_.notify_all();
    };
    wo.before_write = std::move(before_write);
    return std::make_unique<SpoolWriter>(std::move(wo));
  }

  // Completions until `n` arrived (the wake-up is the only signal waited on).
  std::vector<SpoolWriter::Completion> TakeN(SpoolWriter& w, size_t n) {
    std::vector<SpoolWriter::Completion> all;
    for (;;) {
      int seen;
      {
        std::lock_guard lock(mu_);
        seen = wakes_;
      }
      for (auto& c : w.TakeCompletions()) all.push_back(std::move(c));
      if (all.size() >= n) return all;
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return wakes_ != seen; });
    }
  }

  SpoolWriter::Task Task(uint64_t session, uint64_t request, const std::string& text) {
    auto r = scheduler_->Reserve(1000, "doc", text.size());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return SpoolWriter::Task{session, request, true, std::move(*r), Sealed(text)};
  }

  TempDir dir_;
  std::optional<Spool> spool_;
  std::unique_ptr<Scheduler> scheduler_;
  std::mutex mu_;
  std::condition_variable cv_;
  int wakes_ = 0;  // Guarded by mu_.
};

TEST_F(SpoolWriterTest, WritesOffTheCallerAndTheLoopCommits) {
  auto writer = MakeWriter();
  writer->Enqueue(Task(7, 70, "2 0"));
  auto done = TakeN(*writer, 1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].session_id, 7u);
  EXPECT_EQ(done[0].request_id, 70u);
  ASSERT_TRUE(done[0].job.ok()) << done[0].job.status().ToString();
  const JobId id = done[0].job->id;
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/jobs/" + std::to_string(id) + "/document"));
  // Durable but not yet visible: the loop commits it.
  EXPECT_FALSE(scheduler_->Find(id).has_value());
  scheduler_->Commit(*done[0].job);
  ASSERT_TRUE(scheduler_->Find(id).has_value());
  EXPECT_EQ(scheduler_->Find(id)->state, JobState::kQueued);
  EXPECT_TRUE(writer->Idle());
}

TEST_F(SpoolWriterTest, ReservationHoldsTheLimitWhileTheWriteIsInFlight) {
  Gate gate;
  auto writer = MakeWriter([&] { gate.Pass(); });
  writer->Enqueue(Task(1, 1, "1 0"));
  gate.WaitForWriter();
  EXPECT_FALSE(writer->Idle());
  // max_jobs_per_user is 1 and the first job is being written: a second one is refused now.
  auto second = scheduler_->Reserve(1000, "doc", 3);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy);
  gate.Open();
  auto done = TakeN(*writer, 1);
  ASSERT_TRUE(done[0].job.ok());
  scheduler_->Commit(*done[0].job);
  EXPECT_EQ(scheduler_->Reserve(1000, "doc", 3).status().code(), StatusCode::kBusy) << "still queued";
}

TEST_F(SpoolWriterTest, DrainFinishesTheWriteInFlightAndRefusesTheRest) {
  Gate gate;
  auto writer = MakeWriter([&] { gate.Pass(); });
  writer->Enqueue(Task(1, 1, "1 0"));
  gate.WaitForWriter();
  // A second user's document waits behind the one being written.
  auto r = scheduler_->Reserve(2000, "other", 3);
  ASSERT_TRUE(r.ok());
  writer->Enqueue(SpoolWriter::Task{2, 2, false, std::move(*r), Sealed("1 0")});
  scheduler_->BeginDrain();
  gate.Open();
  auto done = TakeN(*writer, 2);
  ASSERT_TRUE(done[0].job.ok()) << "the write in flight is finished";
  scheduler_->Commit(*done[0].job);
  EXPECT_EQ(done[1].session_id, 2u);
  ASSERT_FALSE(done[1].job.ok());
  EXPECT_EQ(done[1].job.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(scheduler_->List(std::nullopt).size(), 1u);
  EXPECT_EQ(scheduler_->Stats().queued, 1);
  EXPECT_TRUE(writer->Idle());
}

TEST_F(SpoolWriterTest, AFullDiskIsAnErrorAndTheReservationIsReleased) {
  auto writer = MakeWriter();
  // The jobs folder is a file: Accept fails as on a full disk (even for root).
  std::filesystem::remove_all(dir_.path() + "/jobs");
  std::ofstream(dir_.path() + "/jobs") << "x";
  writer->Enqueue(Task(1, 1, "1 0"));
  auto done = TakeN(*writer, 1);
  EXPECT_FALSE(done[0].job.ok());
  // The place was given back: the user may submit again.
  EXPECT_TRUE(scheduler_->Reserve(1000, "doc", 3).ok());
}

}  // namespace
}  // namespace mineru::daemon
