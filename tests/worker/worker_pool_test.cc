// WorkerPool against the real minerud-worker: a worker that finished a document serves the same user's
// next one (warm), never another user's; it serves at most its documents, each with a renewed CPU share
// within the hard limit it set at its start; idle workers are ended after keep_idle.
#include "worker/worker_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <fstream>
#include <iterator>
#include <thread>

#include "shm/document_buffer.h"
#include "tests/support/shared_data.h"

namespace mineru::worker {
namespace {

class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    std::ifstream in(shared / "corpus/docling/pdf/normal_4pages.pdf", std::ios::binary);
    pdf_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ASSERT_FALSE(pdf_.empty());
  }

  WorkerPool::Options PoolOptions(uint32_t documents, std::chrono::milliseconds keep_idle) {
    WorkerPool::Options o;
    o.worker.path = MINERUD_WORKER_PATH;
    o.worker.cpu_seconds = 30;
    o.worker.documents = documents;
    o.spares = 1;
    o.keep_idle = keep_idle;
    return o;
  }

  // Parses the sample in `w`; returns the Markdown file.
  std::string Parse(WorkerProcess& w) {
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(pdf_.data()), pdf_.size());
    auto buffer = shm::DocumentBuffer::CopyOf(bytes);
    auto memfd = buffer->Seal();
    OpenLimits limits;
    limits.name = "normal_4pages";
    limits.deadline = Deadline::InMillis(60'000);
    auto pages = w.Open(memfd->get(), pdf_.size(), limits);
    EXPECT_TRUE(pages.ok()) << pages.status().ToString();
    std::atomic<bool> cancel{false};
    auto parsed = w.ParseText(
        0, UINT32_MAX, [](WorkerPage) {}, std::chrono::milliseconds(0), cancel);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (!parsed.ok()) return "";
    auto md = parsed->files.Find("normal_4pages.md");
    return std::string(md.begin(), md.end());
  }

  std::string pdf_;
};

TEST_F(WorkerPoolTest, AWarmWorkerServesItsUserOnlyWithARenewedCpuShare) {
  WorkerPool pool(PoolOptions(3, std::chrono::milliseconds(60'000)));
  auto first = pool.TakeFor(1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const pid_t pid = (*first)->pid();
  const std::string md = Parse(**first);
  ASSERT_FALSE(md.empty());
  pool.Give(1, std::move(*first));
  EXPECT_EQ(pool.idle(), 1u);

  auto other = pool.TakeFor(2);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_NE((*other)->pid(), pid) << "another user got a worker that saw user 1's document";
  EXPECT_EQ(pool.idle(), 1u);

  auto again = pool.TakeFor(1);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->pid(), pid);
  EXPECT_EQ(pool.idle(), 0u);
  // Its CPU limit was renewed from what it has used, within its hard limit (3 documents' worth).
  rlimit cpu{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_CPU, nullptr, &cpu), 0);
  EXPECT_GE(cpu.rlim_cur, 30u);
  EXPECT_LT(cpu.rlim_cur, cpu.rlim_max);
  EXPECT_LE(cpu.rlim_max, 3u * 30 + 10);
  EXPECT_EQ(Parse(**again), md) << "a reused worker parses the next document as a fresh one";
}

TEST_F(WorkerPoolTest, AWorkerServesAtMostItsDocuments) {
  WorkerPool pool(PoolOptions(2, std::chrono::milliseconds(60'000)));
  auto w = pool.TakeFor(7);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const pid_t pid = (*w)->pid();
  ASSERT_FALSE(Parse(**w).empty());
  pool.Give(7, std::move(*w));
  w = pool.TakeFor(7);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ((*w)->pid(), pid);
  ASSERT_FALSE(Parse(**w).empty());
  pool.Give(7, std::move(*w));
  EXPECT_EQ(pool.idle(), 0u) << "a worker kept past its documents";
  EXPECT_NE(::kill(pid, 0), 0) << "the worker that served its documents is still running";
}

TEST_F(WorkerPoolTest, IdleWorkersAreEndedAfterKeepIdle) {
  WorkerPool pool(PoolOptions(8, std::chrono::milliseconds(200)));
  auto w = pool.TakeFor(1);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const pid_t pid = (*w)->pid();
  ASSERT_FALSE(Parse(**w).empty());
  pool.Give(1, std::move(*w));
  EXPECT_EQ(pool.idle(), 1u);
  Deadline deadline = Deadline::InMillis(10'000);
  while ((pool.idle() > 0 || ::kill(pid, 0) == 0) && !deadline.Expired()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(pool.idle(), 0u);
  EXPECT_NE(::kill(pid, 0), 0) << "an idle worker outlived keep_idle";
  // The next document of that user gets a fresh worker.
  auto next = pool.TakeFor(1);
  ASSERT_TRUE(next.ok());
  EXPECT_NE((*next)->pid(), pid);
}

// A reload's new limits hold for every document after it: a worker busy during the reload is ended when
// it comes back, not kept for its user's next document with the old limits.
TEST_F(WorkerPoolTest, AWorkerStartedBeforeAReloadIsNotReusedAfterIt) {
  WorkerPool pool(PoolOptions(4, std::chrono::milliseconds(60'000)));
  auto w = pool.TakeFor(1);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const pid_t pid = (*w)->pid();
  ASSERT_FALSE(Parse(**w).empty());
  WorkerOptions reloaded = PoolOptions(4, std::chrono::milliseconds(60'000)).worker;
  reloaded.cpu_seconds = 45;
  pool.SetWorkerOptions(reloaded);
  pool.Give(1, std::move(*w));
  EXPECT_EQ(pool.idle(), 0u) << "a worker with the old limits was kept";
  EXPECT_NE(::kill(pid, 0), 0) << "the worker with the old limits is still running";
  auto next = pool.TakeFor(1);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_NE((*next)->pid(), pid);
  EXPECT_EQ((*next)->options(), reloaded);
  // Without a change of limits, reuse goes on.
  ASSERT_FALSE(Parse(**next).empty());
  const pid_t kept = (*next)->pid();
  pool.Give(1, std::move(*next));
  EXPECT_EQ(pool.idle(), 1u);
  auto again = pool.TakeFor(1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->pid(), kept);
}

TEST_F(WorkerPoolTest, WithoutReuseAWorkerIsNeverGivenBack) {
  WorkerPool pool(PoolOptions(1, std::chrono::milliseconds(60'000)));
  auto w = pool.TakeFor(1);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_FALSE(Parse(**w).empty());
  // One document's CPU share: the hard limit leaves no room for a longer one.
  EXPECT_EQ((*w)->GrantCpu(60).code(), StatusCode::kResourceExhausted);
  const pid_t pid = (*w)->pid();
  pool.Give(1, std::move(*w));
  EXPECT_EQ(pool.idle(), 0u);
  EXPECT_NE(::kill(pid, 0), 0);
}

}  // namespace
}  // namespace mineru::worker
