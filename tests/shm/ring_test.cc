// The result ring in one process (the consumer attaches to duplicated fds, so both sides map the
// memfds separately, as two processes would): wrap-around at every offset, records of exactly the
// ring size and larger, back-pressure, wake-ups, a hostile consumer forging its index, and forged
// fragments written by a hand-made producer segment.
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>

#include "shm/document_buffer.h"
#include "shm/fd_passing.h"
#include "shm/ring_consumer.h"
#include "shm/ring_producer.h"
#include "tests/shm/fd_guard.h"

namespace mineru::shm {
namespace {

using RingTest = testing::FdLeakTest;

std::vector<uint8_t> Pattern(uint64_t size, uint64_t seed) {
  std::vector<uint8_t> v(size);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& b : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<uint8_t>(x);
  }
  return v;
}

struct Ring {
  RingProducer producer;
  RingConsumer consumer;
};

Ring MakeRing(RingOptions options = {}) {
  auto producer = RingProducer::Create(options);
  EXPECT_TRUE(producer.ok()) << producer.status().ToString();
  auto fds = producer->DupFdsForConsumer();
  EXPECT_TRUE(fds.ok());
  auto consumer = RingConsumer::Attach(std::move(*fds));
  EXPECT_TRUE(consumer.ok()) << consumer.status().ToString();
  return Ring{std::move(*producer), std::move(*consumer)};
}

// Writes and reads `record`, alternating non-blocking calls so any size flows through.
void Transfer(Ring& ring, const std::vector<uint8_t>& record) {
  uint64_t offset = 0;
  std::vector<uint8_t> got;
  bool written = false;
  bool read = false;
  for (int spins = 0; !(written && read); ++spins) {
    ASSERT_LT(spins, 1'000'000);
    if (!written) {
      auto w = ring.producer.TryWrite(record, &offset);
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      written = *w;
    }
    auto r = ring.consumer.TryRead(&got);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    read = *r;
  }
  ASSERT_EQ(got.size(), record.size());
  ASSERT_TRUE(got == record);
}

TEST_F(RingTest, CapacityIsRoundedToAPowerOfTwo) {
  RingOptions options;
  options.capacity_bytes = 5000;
  Ring ring = MakeRing(options);
  EXPECT_EQ(ring.producer.capacity(), 8192u);
  EXPECT_EQ(ring.consumer.capacity(), 8192u);
  options.capacity_bytes = 1;
  EXPECT_EQ(MakeRing(options).producer.capacity(), kMinRingCapacity);
}

TEST_F(RingTest, WrapAroundAtEveryOffset) {
  constexpr uint64_t kCap = 4096;
  // Every fragment start (16-byte steps) and, through the lengths, every byte position of the wrap.
  for (uint64_t start = 0; start < kCap; start += kFragmentAlign) {
    RingOptions options;
    options.capacity_bytes = kCap;
    options.max_fragment_bytes = kCap - kFragmentAlign;
    Ring ring = MakeRing(options);
    if (start > 0) Transfer(ring, Pattern(start - kFragmentAlign, start));  // moves the index to `start`
    ASSERT_EQ(ring.producer.write_index() % kCap, start);
    for (uint64_t len : {uint64_t{0}, uint64_t{1}, start % 31 + 1, uint64_t{1000}, uint64_t{3000},
                         kCap - kFragmentAlign, kCap}) {
      SCOPED_TRACE(::testing::Message() << "start " << start << " len " << len);
      Transfer(ring, Pattern(len, start * 7 + len));
    }
    EXPECT_EQ(ring.consumer.records_read(), ring.producer.records_written());
  }
}

TEST_F(RingTest, RecordsOfExactlyTheRingSizeAndLarger) {
  RingOptions options;
  options.capacity_bytes = 4096;
  Ring ring = MakeRing(options);
  for (uint64_t len :
       {uint64_t{4096}, uint64_t{4096 - 16}, uint64_t{4097}, uint64_t{3 * 4096 + 5}, uint64_t{1 << 20}}) {
    SCOPED_TRACE(len);
    Transfer(ring, Pattern(len, len));
  }
}

TEST_F(RingTest, SlowReaderCausesBackPressureNotLoss) {
  RingOptions options;
  options.capacity_bytes = 8192;
  Ring ring = MakeRing(options);
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  constexpr int kRecords = 20000;
  std::thread producer([&] {
    for (int i = 0; i < kRecords; ++i) {
      auto record = Pattern(static_cast<uint64_t>(i % 700), static_cast<uint64_t>(i));
      ASSERT_TRUE(ring.producer.Write(record, Deadline::InMillis(20000), pair->first.get()).ok());
    }
    ring.producer.Close();
  });
  std::vector<uint8_t> got;
  for (int i = 0; i < kRecords; ++i) {
    ASSERT_TRUE(ring.consumer.Read(&got, Deadline::InMillis(20000), pair->second.get()).ok());
    ASSERT_TRUE(got == Pattern(static_cast<uint64_t>(i % 700), static_cast<uint64_t>(i))) << i;
    if (i % 2000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a slow reader
  }
  producer.join();
  auto end = ring.consumer.TryRead(&got);
  EXPECT_EQ(end.status().code(), StatusCode::kUnavailable);
}

TEST_F(RingTest, WaitTimesOutAndWakesOnPublish) {
  Ring ring = MakeRing();
  EXPECT_EQ(ring.consumer.Wait(Deadline::InMillis(20)).code(), StatusCode::kDeadlineExceeded);
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    ASSERT_TRUE(ring.producer.Write(Pattern(10, 1)).ok());
  });
  std::vector<uint8_t> got;
  EXPECT_TRUE(ring.consumer.Read(&got, Deadline::InMillis(5000)).ok());
  later.join();
  EXPECT_EQ(got, Pattern(10, 1));
}

// The daemon's event-loop path: TryWrite until full, ArmSpaceWakeup, watch space_event_fd, resume.
TEST_F(RingTest, NonBlockingBackPressureThroughTheSpaceEvent) {
  RingOptions options;
  options.capacity_bytes = 4096;
  Ring ring = MakeRing(options);
  auto readable = [](int fd) {
    pollfd pfd{fd, POLLIN, 0};
    return poll(&pfd, 1, 0) == 1;
  };
  // Fill the ring with 100-byte records until one does not fit whole.
  std::vector<std::vector<uint8_t>> sent;
  uint64_t offset = 0;
  std::vector<uint8_t> record;
  while (true) {
    record = Pattern(100, sent.size());
    offset = 0;
    auto w = ring.producer.TryWrite(record, &offset);
    ASSERT_TRUE(w.ok());
    if (!*w) break;
    sent.push_back(record);
  }
  ASSERT_GT(sent.size(), 10u);
  EXPECT_FALSE(ring.producer.ArmSpaceWakeup());  // still full: wait for the event
  EXPECT_FALSE(readable(ring.producer.space_event_fd()));
  std::vector<uint8_t> got;
  ASSERT_TRUE(*ring.consumer.TryRead(&got));  // the consumer frees a record and signals
  EXPECT_EQ(got, sent[0]);
  EXPECT_TRUE(readable(ring.producer.space_event_fd()));
  ring.producer.ConsumeSpaceWakeup();
  EXPECT_FALSE(readable(ring.producer.space_event_fd()));
  // The open record continues where it stopped.
  auto w = ring.producer.TryWrite(record, &offset);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(*w);
  sent.push_back(record);
  for (size_t i = 1; i < sent.size(); ++i) {
    ASSERT_TRUE(*ring.consumer.TryRead(&got));
    EXPECT_EQ(got, sent[i]);
  }
  // Without the flag armed, the consumer does not signal.
  EXPECT_FALSE(readable(ring.producer.space_event_fd()));
}

TEST_F(RingTest, ConsumerWaitSeesTheProducerHangUp) {
  Ring ring = MakeRing();
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  ASSERT_TRUE(ring.producer.Write(Pattern(10, 1)).ok());
  pair->first.reset();  // the daemon's end of the session is gone
  std::vector<uint8_t> got;
  // What was published before is still delivered; then the hang-up is reported, not a hang.
  ASSERT_TRUE(ring.consumer.Read(&got, Deadline::InMillis(5000), pair->second.get()).ok());
  EXPECT_EQ(got, Pattern(10, 1));
  EXPECT_EQ(ring.consumer.Read(&got, Deadline::InMillis(5000), pair->second.get()).code(),
            StatusCode::kUnavailable);
}

TEST_F(RingTest, FullRingProducerTimesOut) {
  RingOptions options;
  options.capacity_bytes = 4096;
  Ring ring = MakeRing(options);
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ(ring.producer.Write(Pattern(10000, 1), Deadline::InMillis(30), pair->first.get()).code(),
            StatusCode::kDeadlineExceeded);
  // The record is still open: starting another one is a caller bug, reported as such.
  EXPECT_EQ(ring.producer.Write(Pattern(10, 1), Deadline::InMillis(30)).code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(RingTest, ProducerSeesTheConsumerHangUpWhileFull) {
  RingOptions options;
  options.capacity_bytes = 4096;
  Ring ring = MakeRing(options);
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  pair->second.reset();
  const auto started = MonoNow();
  EXPECT_EQ(ring.producer.Write(Pattern(10000, 1), Deadline::InMillis(10000), pair->first.get()).code(),
            StatusCode::kUnavailable);
  EXPECT_LT(MonoNow() - started, std::chrono::seconds(5));
}

// A consumer that dies inside a large record: a new consumer attached to the same ring skips that
// record's remaining fragments and starts at the next whole record.
TEST_F(RingTest, NewConsumerResumesAtTheNextWholeRecord) {
  RingOptions options;
  options.capacity_bytes = 4096;
  auto producer = RingProducer::Create(options);
  ASSERT_TRUE(producer.ok());
  const auto big = Pattern(20000, 1);
  const auto next = Pattern(300, 2);
  uint64_t offset = 0;
  {
    auto fds = producer->DupFdsForConsumer();
    ASSERT_TRUE(fds.ok());
    auto first = RingConsumer::Attach(std::move(*fds));
    ASSERT_TRUE(first.ok());
    // Half the big record passes through the first consumer, which then goes away.
    std::vector<uint8_t> got;
    while (offset < big.size() / 2) {
      ASSERT_TRUE(producer->TryWrite(big, &offset).ok());
      auto r = first->TryRead(&got);
      ASSERT_TRUE(r.ok());
      ASSERT_FALSE(*r);
    }
  }
  auto fds = producer->DupFdsForConsumer();
  ASSERT_TRUE(fds.ok());
  auto second = RingConsumer::Attach(std::move(*fds));
  ASSERT_TRUE(second.ok());
  std::vector<uint8_t> got;
  bool big_done = false, next_done = false;
  uint64_t next_offset = 0;
  for (int spins = 0; !(big_done && next_done); ++spins) {
    ASSERT_LT(spins, 100000);
    if (!big_done) {
      auto w = producer->TryWrite(big, &offset);
      ASSERT_TRUE(w.ok());
      big_done = *w;
    } else {
      auto w = producer->TryWrite(next, &next_offset);
      ASSERT_TRUE(w.ok());
      next_done = *w;
    }
    auto r = second->TryRead(&got);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(*r && !big_done);  // no part of the big record is delivered as a record
  }
  std::vector<uint8_t> last;
  ASSERT_TRUE(second->Read(&last, Deadline::InMillis(1000)).ok() || got == next);
  if (got != next) {
    EXPECT_EQ(last, next);
  }
  EXPECT_GT(second->fragments_skipped(), 0u);
}

// A hostile consumer writes anything into its control memfd. The producer validates the index each
// time and never writes past the free space.
TEST_F(RingTest, ForgedReadIndicesAreRefused) {
  RingOptions options;
  options.capacity_bytes = 4096;
  Ring ring = MakeRing(options);
  auto fds = ring.producer.DupFdsForConsumer();
  ASSERT_TRUE(fds.ok());
  auto* control = static_cast<uint8_t*>(
      mmap(nullptr, kControlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds->control.get(), 0));
  ASSERT_NE(control, MAP_FAILED);
  auto read_index = SharedWord<uint64_t>(control, kReadIndexOffset);
  Transfer(ring, Pattern(100, 1));  // write index 128, read index 128
  const uint64_t w = ring.producer.write_index();
  for (uint64_t forged :
       {w + 16, w + 4096, w - 8, uint64_t{8}, uint64_t{1} << 63, ~uint64_t{0}, w + 4096 + 16}) {
    SCOPED_TRACE(forged);
    read_index.store(forged);
    uint64_t offset = 0;
    auto r = ring.producer.TryWrite(Pattern(50, 2), &offset);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
    EXPECT_EQ(offset, 0u);
    EXPECT_EQ(ring.producer.write_index(), w);
    EXPECT_FALSE(ring.producer.FreeBytes().ok());
  }
  // Backwards (an index below the last valid one) is refused too.
  read_index.store(w);
  ASSERT_TRUE(ring.producer.FreeBytes().ok());
  read_index.store(w - 16 * 4);
  EXPECT_FALSE(ring.producer.FreeBytes().ok());
  // Restoring the true index makes the ring usable again; nothing was written meanwhile.
  read_index.store(w);
  EXPECT_EQ(*ring.producer.FreeBytes(), 4096u);
  munmap(control, kControlBytes);
}

// Random read indices from a hostile consumer, interleaved with writes: the producer either refuses
// the index or writes only into free space (ASan builds check every byte it touches).
TEST_F(RingTest, RandomForgedReadIndicesNeverCorruptTheProducer) {
  RingOptions options;
  options.capacity_bytes = 4096;
  Ring ring = MakeRing(options);
  auto fds = ring.producer.DupFdsForConsumer();
  ASSERT_TRUE(fds.ok());
  auto* control = static_cast<uint8_t*>(
      mmap(nullptr, kControlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds->control.get(), 0));
  ASSERT_NE(control, MAP_FAILED);
  auto read_index = SharedWord<uint64_t>(control, kReadIndexOffset);
  std::mt19937_64 rng(12345);
  uint64_t refused = 0, accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t w = ring.producer.write_index();
    uint64_t forged;
    switch (rng() % 4) {
      case 0:
        forged = rng();
        break;
      case 1:
        forged = w - (rng() % 8192);
        break;
      case 2:
        forged = w + (rng() % 8192);
        break;
      default:
        forged = w - (rng() % 4096) / 16 * 16;
        break;  // often valid
    }
    read_index.store(forged);
    auto free = ring.producer.FreeBytes();
    const auto record = Pattern(rng() % 600, static_cast<uint64_t>(i));
    uint64_t offset = 0;
    auto wrote = ring.producer.TryWrite(record, &offset);
    if (!wrote.ok()) {
      ++refused;
      EXPECT_EQ(wrote.status().code(), StatusCode::kDataLoss);
      EXPECT_EQ(ring.producer.write_index(), w);
      EXPECT_EQ(offset, 0u);
      continue;
    }
    ++accepted;
    ASSERT_TRUE(free.ok());
    // Never more than the free space the (validated) index allowed.
    EXPECT_LE(ring.producer.write_index() - w, *free);
    EXPECT_LE(ring.producer.write_index() - forged, 4096u);
    // A record left open (the ring was "full"): an honest index lets it finish.
    for (int k = 0; k < 10 && !*wrote; ++k) {
      read_index.store(ring.producer.write_index());
      wrote = ring.producer.TryWrite(record, &offset);
      ASSERT_TRUE(wrote.ok());
    }
    ASSERT_TRUE(*wrote);
  }
  EXPECT_GT(refused, 1000u);
  EXPECT_GT(accepted, 100u);  // both paths are exercised (deterministic seed)
  munmap(control, kControlBytes);
}

TEST_F(RingTest, ConsumerCannotWriteTheDataOrResizeEither) {
  auto producer = RingProducer::Create();
  ASSERT_TRUE(producer.ok());
  auto fds = producer->DupFdsForConsumer();
  ASSERT_TRUE(fds.ok());
  const uint64_t size = kRingHeaderBytes + producer->capacity();
  void* w = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fds->data.get(), 0);
  EXPECT_EQ(w, MAP_FAILED);
  if (w != MAP_FAILED) munmap(w, size);
  void* r = mmap(nullptr, size, PROT_READ, MAP_SHARED, fds->data.get(), 0);
  ASSERT_NE(r, MAP_FAILED);
  EXPECT_NE(mprotect(r, size, PROT_READ | PROT_WRITE), 0);
  munmap(r, size);
  const char byte = 1;
  EXPECT_LT(pwrite(fds->data.get(), &byte, 1, kRingHeaderBytes), 0);
  EXPECT_NE(ftruncate(fds->data.get(), 4096), 0);
  EXPECT_NE(ftruncate(fds->control.get(), 0), 0);
  EXPECT_NE(ftruncate(fds->control.get(), 1 << 20), 0);
}

TEST_F(RingTest, AttachRefusesWrongFds) {
  auto producer = RingProducer::Create();
  ASSERT_TRUE(producer.ok());
  {
    auto fds = producer->DupFdsForConsumer();
    ASSERT_TRUE(fds.ok());
    std::swap(fds->data, fds->control);
    EXPECT_FALSE(RingConsumer::Attach(std::move(*fds)).ok());
  }
  {
    auto fds = producer->DupFdsForConsumer();
    ASSERT_TRUE(fds.ok());
    auto pair = SocketPair();
    ASSERT_TRUE(pair.ok());
    fds->data = std::move(pair->first);
    EXPECT_EQ(RingConsumer::Attach(std::move(*fds)).status().code(), StatusCode::kInvalidArgument);
  }
  {
    auto fds = producer->DupFdsForConsumer();
    ASSERT_TRUE(fds.ok());
    fds->space_event.reset();
    EXPECT_FALSE(RingConsumer::Attach(std::move(*fds)).ok());
  }
}

// A hand-made producer segment lets the test write forged fragments and headers.
class ForgedRing {
 public:
  static constexpr uint64_t kCap = 4096;

  ForgedRing() {
    data_ = std::move(*CreateMemfd("forged"));
    control_ = std::move(*CreateMemfd("forged-control"));
    EXPECT_EQ(ftruncate(data_.get(), kRingHeaderBytes + kCap), 0);
    EXPECT_EQ(ftruncate(control_.get(), kControlBytes), 0);
    map_ = static_cast<uint8_t*>(
        mmap(nullptr, kRingHeaderBytes + kCap, PROT_READ | PROT_WRITE, MAP_SHARED, data_.get(), 0));
    auto* control = static_cast<uint8_t*>(
        mmap(nullptr, kControlBytes, PROT_READ | PROT_WRITE, MAP_SHARED, control_.get(), 0));
    RingHeader header{kRingMagic, kRingAbiVersion,  kRingHeaderBytes,
                      kCap,       kRingHeaderBytes, kRingHeaderBytes + kCap};
    std::memcpy(map_, &header, sizeof(header));
    ControlHeader ch{kControlMagic, kRingAbiVersion, kControlBytes};
    std::memcpy(control, &ch, sizeof(ch));
    munmap(control, kControlBytes);
    EXPECT_EQ(fcntl(data_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
    EXPECT_EQ(fcntl(control_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
  }
  ~ForgedRing() { munmap(map_, kRingHeaderBytes + kCap); }

  RingFds Fds() {
    RingFds fds;
    fds.data = UniqueFd(dup(data_.get()));
    fds.control = UniqueFd(dup(control_.get()));
    fds.data_event = UniqueFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    fds.space_event = UniqueFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    return fds;
  }
  // Writes a fragment at ring index `at` and publishes write index `publish`.
  void Fragment(uint64_t at, uint32_t payload_bytes, uint16_t flags, uint64_t seq, bool good_check = true) {
    FragmentHeader h{payload_bytes, flags, 0, seq};
    h.check = FragmentCheck(payload_bytes, flags, seq);
    if (!good_check) h.check ^= 1;
    std::memcpy(map_ + kRingHeaderBytes + at % kCap, &h, sizeof(h));
  }
  void Publish(uint64_t w) { SharedWord<uint64_t>(map_, kWriteIndexOffset).store(w); }
  uint8_t* header() { return map_; }

 private:
  UniqueFd data_;
  UniqueFd control_;
  uint8_t* map_ = nullptr;
};

TEST_F(RingTest, ForgedFragmentsAreDetected) {
  struct Case {
    const char* what;
    uint32_t payload;
    uint16_t flags;
    uint64_t seq;
    bool good_check;
    uint64_t publish;
  };
  const Case cases[] = {
      {"bad check word", 8, kFragmentBegin | kFragmentEnd, 0, false, 32},
      {"length past the published bytes", 100, kFragmentBegin | kFragmentEnd, 0, true, 32},
      {"length of 2^32-1", 0xFFFFFFFF, kFragmentBegin | kFragmentEnd, 0, true, 4096},
      {"unknown flags", 8, 0x80 | kFragmentBegin, 0, true, 32},
      {"write index beyond one capacity", 8, kFragmentBegin | kFragmentEnd, 0, true, 4096 + 16},
      {"unaligned write index", 8, kFragmentBegin | kFragmentEnd, 0, true, 24},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ForgedRing forged;
    auto consumer = RingConsumer::Attach(forged.Fds());
    ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
    forged.Fragment(0, c.payload, c.flags, c.seq, c.good_check);
    forged.Publish(c.publish);
    std::vector<uint8_t> got;
    auto r = consumer->TryRead(&got);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
  }
}

// Garbage in the producer's segment (random bytes, random write index): the consumer reports
// kDataLoss or reads records, never anything out of bounds (ASan builds check).
TEST_F(RingTest, RandomGarbageNeverMakesTheConsumerReadOutOfBounds) {
  std::mt19937_64 rng(777);
  for (int round = 0; round < 300; ++round) {
    ForgedRing forged;
    auto consumer = RingConsumer::Attach(forged.Fds());
    ASSERT_TRUE(consumer.ok());
    uint8_t* data = forged.header() + kRingHeaderBytes;
    for (uint64_t i = 0; i < ForgedRing::kCap; i += 8) {
      const uint64_t v = rng();
      std::memcpy(data + i, &v, 8);
    }
    // Plant a few well-formed headers so some reads get past the check word.
    for (int k = 0; k < 4; ++k) {
      const uint64_t at = (rng() % (ForgedRing::kCap / 16)) * 16;
      forged.Fragment(at, static_cast<uint32_t>(rng() % 5000), static_cast<uint16_t>(rng() % 4),
                      static_cast<uint64_t>(k));
    }
    forged.Publish(rng() % 3 == 0 ? rng() : (rng() % (ForgedRing::kCap + 64)));
    std::vector<uint8_t> got;
    for (int reads = 0; reads < 50; ++reads) {
      auto r = consumer->TryRead(&got);
      if (!r.ok()) {
        EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
        break;
      }
      if (!*r) break;
      EXPECT_LE(got.size(), ForgedRing::kCap);
    }
  }
}

TEST_F(RingTest, ForgedSequencesAndRecordStructureAreDetected) {
  {
    ForgedRing forged;  // second fragment repeats sequence 0
    auto consumer = RingConsumer::Attach(forged.Fds());
    ASSERT_TRUE(consumer.ok());
    forged.Fragment(0, 8, kFragmentBegin | kFragmentEnd, 0);
    forged.Fragment(32, 8, kFragmentBegin | kFragmentEnd, 0);
    forged.Publish(64);
    std::vector<uint8_t> got;
    ASSERT_TRUE(*consumer->TryRead(&got));
    EXPECT_EQ(consumer->TryRead(&got).status().code(), StatusCode::kDataLoss);
  }
  {
    ForgedRing forged;  // a begin inside an open record
    auto consumer = RingConsumer::Attach(forged.Fds());
    ASSERT_TRUE(consumer.ok());
    forged.Fragment(0, 8, kFragmentBegin, 5);
    forged.Fragment(32, 8, kFragmentBegin | kFragmentEnd, 6);
    forged.Publish(64);
    std::vector<uint8_t> got;
    EXPECT_EQ(consumer->TryRead(&got).status().code(), StatusCode::kDataLoss);
  }
}

TEST_F(RingTest, ForgedHeadersAreRefusedAtAttach) {
  auto attach_with = [](auto mutate) {
    ForgedRing forged;
    RingHeader h;
    std::memcpy(&h, forged.header(), sizeof(h));
    mutate(h);
    std::memcpy(forged.header(), &h, sizeof(h));
    return RingConsumer::Attach(forged.Fds()).status();
  };
  EXPECT_TRUE(attach_with([](RingHeader&) {}).ok());
  EXPECT_FALSE(attach_with([](RingHeader& h) { h.magic ^= 1; }).ok());
  EXPECT_EQ(attach_with([](RingHeader& h) { h.abi_version = 2; }).code(), StatusCode::kUnimplemented);
  EXPECT_FALSE(attach_with([](RingHeader& h) { h.capacity_bytes = 1ull << 40; }).ok());
  EXPECT_FALSE(attach_with([](RingHeader& h) { h.capacity_bytes = 3000; }).ok());
  EXPECT_FALSE(attach_with([](RingHeader& h) { h.data_offset = 0; }).ok());
  EXPECT_FALSE(attach_with([](RingHeader& h) { h.total_bytes += 4096; }).ok());
}

}  // namespace
}  // namespace mineru::shm
