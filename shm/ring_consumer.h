// RingConsumer: the reading side of a result ring (shm/ring_layout.h); the client owns one per
// session, attached to the four fds of HelloReply.
//
//   std::vector<uint8_t> record;
//   while (true) {
//     MINERU_ASSIGN_OR_RETURN(bool got, consumer.TryRead(&record));    // never blocks
//     if (got) { Handle(record); continue; }
//     MINERU_RETURN_IF_ERROR(consumer.Wait(deadline, socket_fd));     // eventfd + peer hang-up
//   }
// or simply Read(&record, deadline, socket_fd).
//
// Only the one consumer thread calls the methods (single consumer). The data memfd is mapped
// read-only; every fragment is checked (check word, length within the published bytes, sequence).
#pragma once

#include <cstdint>
#include <vector>

#include "common/clock.h"
#include "common/mapped_region.h"
#include "common/result.h"
#include "shm/ring_layout.h"

namespace mineru::shm {

class RingConsumer {
 public:
  // Validates the fds (memfds of the right sizes and seals) and the header (magic, ABI version,
  // sizes), maps data read-only and control read-write. Takes ownership of the fds.
  // Errors: kInvalidArgument (wrong kind of fd, bad header), kUnimplemented (other ABI version).
  static Result<RingConsumer> Attach(RingFds fds);

  RingConsumer(RingConsumer&&) noexcept = default;
  RingConsumer& operator=(RingConsumer&&) noexcept = default;

  // Reads the next whole record into `*record` (reassembling fragments). true: a record was read;
  // false: none complete yet. Fragments of a record still being written are consumed as they come
  // (kept inside the consumer), so records larger than the ring flow through it.
  // Errors: kDataLoss (torn/forged fragment; the ring is then unusable), kUnavailable (producer
  // closed and everything was read).
  Result<bool> TryRead(std::vector<uint8_t>* record);

  // Blocks until the producer published something new, `deadline` passes (kDeadlineExceeded) or
  // `peer_fd` (>= 0) hangs up (kUnavailable). Never sleep-polls: eventfd + poll().
  Status Wait(Deadline deadline = Deadline::Never(), int peer_fd = -1);

  // TryRead + Wait until a record arrives.
  Status Read(std::vector<uint8_t>* record, Deadline deadline = Deadline::Never(), int peer_fd = -1);

  int data_event_fd() const { return fds_.data_event.get(); }
  uint64_t capacity() const { return capacity_; }
  uint64_t records_read() const { return records_read_; }
  uint64_t read_index() const { return read_index_; }
  // Fragments of a record that a previous consumer of this ring had begun, skipped after Attach.
  uint64_t fragments_skipped() const { return fragments_skipped_; }

 private:
  RingConsumer() = default;
  // Consumes one fragment if one is published: 1 = a fragment, 0 = nothing yet.
  Result<int> ReadFragment(bool* record_complete);
  void CopyOut(uint64_t index, uint64_t size, uint8_t* out) const;

  RingFds fds_;
  MappedRegion data_map_;
  MappedRegion control_map_;
  const uint8_t* ring_ = nullptr;
  uint64_t capacity_ = 0;
  uint64_t read_index_ = 0;  // private copy; published to the control memfd
  uint64_t next_sequence_ = 0;
  uint64_t records_read_ = 0;
  std::vector<uint8_t> pending_;  // fragments of the record being reassembled
  bool in_record_ = false;
  bool resync_ = false;  // after Attach: take the next sequence number as found; skip a record's tail
  uint64_t fragments_skipped_ = 0;
};

}  // namespace mineru::shm
