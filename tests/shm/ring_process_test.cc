// The result ring between two real processes (fork): 10^6 records with checksums; a consumer
// SIGKILLed mid-read and a producer SIGKILLed mid-write. The survivor detects the death through the
// peer's socket, never deadlocks, and carries on.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include "shm/fd_passing.h"
#include "shm/ring_consumer.h"
#include "shm/ring_producer.h"
#include "tests/shm/fd_guard.h"

namespace mineru::shm {
namespace {

using RingProcessTest = testing::FdLeakTest;

// Record i: 8-byte index, then a length and bytes derived from i.
std::vector<uint8_t> MakeRecord(uint64_t i, uint64_t max_len) {
  const uint64_t len = 8 + (i * 2654435761u) % max_len;
  std::vector<uint8_t> v(len);
  std::memcpy(v.data(), &i, 8);
  uint64_t x = i + 0x51;
  for (uint64_t k = 8; k < len; ++k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v[k] = static_cast<uint8_t>(x >> 56);
  }
  return v;
}

uint64_t Fnv(uint64_t h, const std::vector<uint8_t>& v) {
  for (uint8_t b : v) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

// Receives the ring's four fds over `sock`, as a client does from HelloReply.
Result<RingConsumer> ReceiveRing(int sock) {
  std::vector<uint8_t> buf(8);
  MINERU_ASSIGN_OR_RETURN(Received got, RecvWithFds(sock, buf, kRingFdCount));
  if (got.fds.size() != kRingFdCount) return InvalidArgument("expected 4 fds");
  RingFds fds{std::move(got.fds[0]), std::move(got.fds[1]), std::move(got.fds[2]), std::move(got.fds[3])};
  return RingConsumer::Attach(std::move(fds));
}

Status SendRing(const RingProducer& producer, int sock) {
  MINERU_ASSIGN_OR_RETURN(RingFds fds, producer.DupFdsForConsumer());
  const int raw[4] = {fds.data.get(), fds.control.get(), fds.data_event.get(), fds.space_event.get()};
  const uint8_t byte = 1;
  return SendWithFds(sock, std::span<const uint8_t>(&byte, 1), raw);
}

bool ReadU64(int fd, uint64_t* v) { return read(fd, v, 8) == 8; }

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

TEST_F(RingProcessTest, MillionRecordsBetweenTwoProcesses) {
  constexpr uint64_t kRecords = 1'000'000;
  RingOptions options;
  options.capacity_bytes = 64 << 10;
  auto producer = RingProducer::Create(options);
  ASSERT_TRUE(producer.ok());
  auto sockets = SocketPair();
  ASSERT_TRUE(sockets.ok());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Consumer process: verify every record, report count and checksum.
    sockets->first.reset();
    auto consumer = ReceiveRing(sockets->second.get());
    if (!consumer.ok()) _exit(2);
    std::vector<uint8_t> record;
    uint64_t hash = 0xcbf29ce484222325ull;
    uint64_t count = 0;
    while (true) {
      Status s = consumer->Read(&record, Deadline::InMillis(60000), sockets->second.get());
      if (s.code() == StatusCode::kUnavailable) break;
      if (!s.ok()) _exit(3);
      if (record != MakeRecord(count, 300)) _exit(4);
      hash = Fnv(hash, record);
      ++count;
    }
    const uint64_t out[2] = {count, hash};
    if (write(sockets->second.get(), out, sizeof(out)) != sizeof(out)) _exit(5);
    _exit(0);
  }
  sockets->second.reset();
  ASSERT_TRUE(SendRing(*producer, sockets->first.get()).ok());
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < kRecords; ++i) {
    const auto record = MakeRecord(i, 300);
    hash = Fnv(hash, record);
    ASSERT_TRUE(producer->Write(record, Deadline::InMillis(60000), sockets->first.get()).ok()) << i;
  }
  producer->Close();
  uint64_t result[2] = {0, 0};
  ASSERT_EQ(read(sockets->first.get(), result, sizeof(result)), static_cast<ssize_t>(sizeof(result)));
  EXPECT_EQ(result[0], kRecords);
  EXPECT_EQ(result[1], hash);
  const int status = WaitExit(child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Consumer process: read and verify records forever, reporting progress on `report`.
[[noreturn]] void ConsumeForever(int sock, int report) {
  auto consumer = ReceiveRing(sock);
  if (!consumer.ok()) _exit(2);
  std::vector<uint8_t> record;
  while (true) {
    Status s = consumer->Read(&record, Deadline::InMillis(60000), sock);
    if (s.code() == StatusCode::kUnavailable) _exit(0);
    if (!s.ok()) _exit(3);
    uint64_t index;
    std::memcpy(&index, record.data(), 8);
    if (record != MakeRecord(index, 5000)) _exit(4);
    if (write(report, &index, 8) != 8) _exit(5);
  }
}

TEST_F(RingProcessTest, ConsumerKilledMidReadThenANewConsumerResumes) {
  RingOptions options;
  options.capacity_bytes = 16 << 10;
  auto producer = RingProducer::Create(options);
  ASSERT_TRUE(producer.ok());
  int report[2];
  ASSERT_EQ(pipe2(report, O_CLOEXEC), 0);
  UniqueFd report_read(report[0]), report_write(report[1]);

  auto sockets = SocketPair();
  ASSERT_TRUE(sockets.ok());
  const pid_t first = fork();
  ASSERT_GE(first, 0);
  if (first == 0) {
    sockets->first.reset();
    report_read.reset();
    ConsumeForever(sockets->second.get(), report_write.get());
  }
  sockets->second.reset();
  ASSERT_TRUE(SendRing(*producer, sockets->first.get()).ok());
  // Write until the consumer has verified 2000 records, then kill it while it reads.
  uint64_t next = 0;
  uint64_t seen = 0;
  while (seen < 2000) {
    ASSERT_TRUE(
        producer->Write(MakeRecord(next, 5000), Deadline::InMillis(30000), sockets->first.get()).ok());
    ++next;
    pollfd pfd{report_read.get(), POLLIN, 0};
    while (poll(&pfd, 1, 0) == 1) {
      uint64_t v;
      ASSERT_TRUE(ReadU64(report_read.get(), &v));
      ++seen;
    }
  }
  ASSERT_EQ(kill(first, SIGKILL), 0);
  EXPECT_TRUE(WIFSIGNALED(WaitExit(first)));
  // The producer keeps writing; once the ring is full it notices the dead consumer (no deadlock).
  Status s;
  const auto started = MonoNow();
  while (
      (s = producer->Write(MakeRecord(next, 5000), Deadline::InMillis(30000), sockets->first.get())).ok()) {
    ++next;
  }
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_LT(MonoNow() - started, std::chrono::seconds(20));

  // Recovery: the daemon drops the dead session's ring and serves the next client on a new one.
  producer = RingProducer::Create(options);
  ASSERT_TRUE(producer.ok());
  auto sockets2 = SocketPair();
  ASSERT_TRUE(sockets2.ok());
  int report2[2];
  ASSERT_EQ(pipe2(report2, O_CLOEXEC), 0);
  UniqueFd report2_read(report2[0]), report2_write(report2[1]);
  const pid_t second = fork();
  ASSERT_GE(second, 0);
  if (second == 0) {
    sockets2->first.reset();
    report2_read.reset();
    ConsumeForever(sockets2->second.get(), report2_write.get());
  }
  sockets2->second.reset();
  report2_write.reset();
  ASSERT_TRUE(SendRing(*producer, sockets2->first.get()).ok());
  constexpr uint64_t kMore = 3000;
  std::vector<uint64_t> got;
  for (uint64_t i = 0; i < kMore; ++i) {
    ASSERT_TRUE(producer->Write(MakeRecord(i, 5000), Deadline::InMillis(30000), sockets2->first.get()).ok());
  }
  producer->Close();
  uint64_t v;
  while (ReadU64(report2_read.get(), &v)) got.push_back(v);
  const int status = WaitExit(second);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ASSERT_EQ(got.size(), kMore);
  for (uint64_t i = 0; i < kMore; ++i) EXPECT_EQ(got[i], i);
}

TEST_F(RingProcessTest, ProducerKilledMidWriteConsumerDrainsAndDetects) {
  RingOptions options;
  options.capacity_bytes = 16 << 10;
  auto producer = RingProducer::Create(options);
  ASSERT_TRUE(producer.ok());
  auto sockets = SocketPair();
  ASSERT_TRUE(sockets.ok());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Producer process: records up to 3x the ring's size, so it is usually mid-record when killed.
    sockets->second.reset();
    for (uint64_t i = 0;; ++i) {
      const auto record = MakeRecord(i, 48 << 10);
      if (!producer->Write(record, Deadline::InMillis(60000), sockets->first.get()).ok()) _exit(3);
    }
  }
  sockets->first.reset();
  auto fds = producer->DupFdsForConsumer();
  ASSERT_TRUE(fds.ok());
  auto consumer = RingConsumer::Attach(std::move(*fds));
  ASSERT_TRUE(consumer.ok());
  std::vector<uint8_t> record;
  uint64_t count = 0;
  for (; count < 200; ++count) {
    ASSERT_TRUE(consumer->Read(&record, Deadline::InMillis(30000), sockets->second.get()).ok());
    ASSERT_EQ(record, MakeRecord(count, 48 << 10));
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  EXPECT_TRUE(WIFSIGNALED(WaitExit(child)));
  // Drain every whole record published before the kill, then see the producer gone.
  Status s;
  const auto started = MonoNow();
  while ((s = consumer->Read(&record, Deadline::InMillis(30000), sockets->second.get())).ok()) {
    ASSERT_EQ(record, MakeRecord(count, 48 << 10));
    ++count;
  }
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_LT(MonoNow() - started, std::chrono::seconds(20));
  EXPECT_GE(count, 200u);
}

}  // namespace
}  // namespace mineru::shm
