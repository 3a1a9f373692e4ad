// RingProducer: the writing side of a result ring (shm/ring_layout.h); the daemon owns one per session.
//
// Non-blocking use from an event loop:
//   uint64_t offset = 0;
//   MINERU_ASSIGN_OR_RETURN(bool complete, producer.TryWrite(record, &offset));
//   if (!complete) {                       // ring full: back-pressure; keep `offset` for the retry
//     if (producer.ArmSpaceWakeup()) ...   // true: space appeared meanwhile, retry now
//     else watch producer.space_event_fd() for readability, then ConsumeSpaceWakeup() and retry.
//   }
// Blocking use (tests, worker threads): Write(record, deadline, peer_socket_fd).
//
// Only the one producer thread calls the methods (single producer). The consumer lives in another
// process and can write only the control memfd; everything read from there is validated.
#pragma once

#include <cstdint>
#include <span>

#include "common/clock.h"
#include "common/mapped_region.h"
#include "common/result.h"
#include "common/unique_fd.h"
#include "shm/ring_layout.h"

namespace mineru::shm {

struct RingOptions {
  uint64_t capacity_bytes =
      4ull << 20;  // rounded up to a power of two in [kMinRingCapacity, kMaxRingCapacity]
  // Largest fragment payload; 0 = capacity / 4 - 16, so a consumer frees space while a big record is
  // still being written.
  uint64_t max_fragment_bytes = 0;
};

class RingProducer {
 public:
  // Creates both memfds, maps them, writes the headers, seals, makes the eventfds.
  static Result<RingProducer> Create(const RingOptions& options = {});

  RingProducer(RingProducer&&) noexcept = default;
  RingProducer& operator=(RingProducer&&) noexcept = default;

  // Duplicates the four fds to hand to the consumer (send them in HelloReply, RingFds order).
  Result<RingFds> DupFdsForConsumer() const;

  // Appends as much of `record` from `*offset` on as fits now and advances `*offset`. Returns true
  // once the whole record is in the ring (then start the next record with offset 0), false when the
  // ring is full (retry later with the same record and offset). Never blocks. Errors: kDataLoss
  // when the consumer's read index is forged (the ring is then unusable: drop the session),
  // kFailedPrecondition when closed or when a record starts before the previous one was complete.
  Result<bool> TryWrite(std::span<const uint8_t> record, uint64_t* offset);

  // Writes the whole record, waiting for space (back-pressure) until `deadline`. `peer_fd` (or -1)
  // is watched for hang-up: a consumer that died makes this return kUnavailable.
  Status Write(std::span<const uint8_t> record, Deadline deadline = Deadline::Never(), int peer_fd = -1);

  // Announces that the producer waits for space. Returns true when space is already available (do
  // not wait); false: wait until space_event_fd() is readable.
  bool ArmSpaceWakeup();
  // Clears the eventfd counter and the waiting flag after a wake-up.
  void ConsumeSpaceWakeup();
  int space_event_fd() const { return space_event_.get(); }

  // Marks the ring closed (the consumer drains what is left, then gets kUnavailable) and wakes it.
  void Close();

  // Bytes the consumer has not yet consumed / free now (after validating the consumer's index).
  Result<uint64_t> FreeBytes();
  uint64_t capacity() const { return capacity_; }
  uint64_t records_written() const { return records_written_; }
  uint64_t write_index() const { return write_index_; }

 private:
  RingProducer() = default;
  Result<uint64_t> LoadReadIndex();
  void Publish();
  void WakeConsumerIfWaiting();

  UniqueFd data_fd_;
  UniqueFd control_fd_;
  UniqueFd data_event_;
  UniqueFd space_event_;
  MappedRegion data_map_;
  MappedRegion control_map_;
  uint8_t* ring_ = nullptr;  // data_map_.data() + kRingHeaderBytes
  uint64_t capacity_ = 0;
  uint64_t max_fragment_bytes_ = 0;
  uint64_t write_index_ = 0;      // private copy: never read back from shared memory
  uint64_t last_read_index_ = 0;  // last validated consumer index
  uint64_t next_sequence_ = 0;
  uint64_t records_written_ = 0;
  bool in_record_ = false;
  bool closed_ = false;
};

}  // namespace mineru::shm
