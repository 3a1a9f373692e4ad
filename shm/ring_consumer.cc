#include "shm/ring_consumer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "common/syscall.h"

namespace mineru::shm {
namespace {

// A regular (memfd) file of exactly `want` bytes (0 = at least `min`) that cannot shrink or grow.
Result<uint64_t> CheckSealedFile(int fd, uint64_t want, uint64_t min, const char* what) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return ErrnoStatus(errno, std::string(what) + ": fstat");
  if (!S_ISREG(st.st_mode)) return InvalidArgument(std::string(what) + " is not a memfd");
  const int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0) return InvalidArgument(std::string(what) + " is not a memfd (no seals)");
  if ((seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW)) {
    return InvalidArgument(std::string(what) + " is not sealed against resizing");
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if ((want != 0 && size != want) || size < min) {
    return InvalidArgument(std::string(what) + " has an unexpected size of " + std::to_string(size) +
                           " bytes");
  }
  return size;
}

void Signal(int event_fd) {
  const uint64_t one = 1;
  (void)!RetryEintr([&] { return write(event_fd, &one, sizeof(one)); });
}

void Drain(int event_fd) {
  uint64_t value;
  (void)!RetryEintr([&] { return read(event_fd, &value, sizeof(value)); });
}

}  // namespace

Result<RingConsumer> RingConsumer::Attach(RingFds fds) {
  if (!fds.data || !fds.control || !fds.data_event || !fds.space_event) {
    return InvalidArgument("result ring: missing file descriptors");
  }
  MINERU_ASSIGN_OR_RETURN(
      uint64_t data_size,
      CheckSealedFile(fds.data.get(), 0, kRingHeaderBytes + kMinRingCapacity, "result ring"));
  MINERU_RETURN_IF_ERROR(
      CheckSealedFile(fds.control.get(), kControlBytes, 0, "result ring control").status());
  RingConsumer c;
  MINERU_ASSIGN_OR_RETURN(c.data_map_, MappedRegion::Map(fds.data.get(), MapOptions{}));
  RingHeader header;
  std::memcpy(&header, c.data_map_.data(), sizeof(header));
  if (header.magic != kRingMagic) return InvalidArgument("result ring: bad magic");
  if (header.abi_version != kRingAbiVersion) {
    return Status(StatusCode::kUnimplemented, "result ring ABI version " +
                                                  std::to_string(header.abi_version) + " (this side speaks " +
                                                  std::to_string(kRingAbiVersion) + ")");
  }
  if (header.header_bytes != kRingHeaderBytes || header.data_offset != kRingHeaderBytes ||
      !std::has_single_bit(header.capacity_bytes) || header.capacity_bytes < kMinRingCapacity ||
      header.capacity_bytes > kMaxRingCapacity || header.total_bytes != data_size ||
      header.data_offset + header.capacity_bytes != data_size) {
    return InvalidArgument("result ring: inconsistent sizes in the header");
  }
  MapOptions control_options;
  control_options.writable = true;
  MINERU_ASSIGN_OR_RETURN(c.control_map_, MappedRegion::Map(fds.control.get(), control_options));
  ControlHeader control;
  std::memcpy(&control, c.control_map_.data(), sizeof(control));
  if (control.magic != kControlMagic || control.abi_version != kRingAbiVersion ||
      control.control_bytes != kControlBytes) {
    return InvalidArgument("result ring control: bad header");
  }
  c.ring_ = c.data_map_.data() + kRingHeaderBytes;
  c.capacity_ = header.capacity_bytes;
  // Resume where the last consumer of this ring stopped (a new attach after a crash).
  c.read_index_ =
      SharedWord<uint64_t>(c.control_map_.data(), kReadIndexOffset).load(std::memory_order_acquire);
  const uint64_t w =
      SharedWord<uint64_t>(c.data_map_.data(), kWriteIndexOffset).load(std::memory_order_acquire);
  if (c.read_index_ % kFragmentAlign != 0 || c.read_index_ > w || w - c.read_index_ > c.capacity_) {
    return DataLoss("result ring: the stored read index is invalid");
  }
  c.resync_ = true;
  c.fds_ = std::move(fds);
  return c;
}

void RingConsumer::CopyOut(uint64_t index, uint64_t size, uint8_t* out) const {
  const uint64_t at = index & (capacity_ - 1);
  const uint64_t first = std::min(size, capacity_ - at);
  if (first == 0) return;  // (out may be null for an empty payload)
  std::memcpy(out, ring_ + at, first);
  if (size > first) std::memcpy(out + first, ring_, size - first);
}

Result<int> RingConsumer::ReadFragment(bool* record_complete) {
  *record_complete = false;
  const uint64_t w =
      SharedWord<uint64_t>(data_map_.data(), kWriteIndexOffset).load(std::memory_order_acquire);
  if (w == read_index_) return 0;
  if (w < read_index_ || w - read_index_ > capacity_ || w % kFragmentAlign != 0) {
    return DataLoss("result ring: the producer published an invalid write index " + std::to_string(w));
  }
  FragmentHeader header;
  CopyOut(read_index_, sizeof(header), reinterpret_cast<uint8_t*>(&header));
  const std::string where = " at ring index " + std::to_string(read_index_);
  if (header.check != FragmentCheck(header.payload_bytes, header.flags, header.sequence) ||
      (header.flags & ~(kFragmentBegin | kFragmentEnd)) != 0) {
    return DataLoss("result ring: torn or forged fragment header" + where);
  }
  if (resync_) {
    next_sequence_ = header.sequence;  // first fragment after attach
  } else if (header.sequence != next_sequence_) {
    return DataLoss("result ring: fragment sequence " + std::to_string(header.sequence) + ", expected " +
                    std::to_string(next_sequence_) + where);
  }
  const uint64_t total = AlignFragment(kFragmentAlign + header.payload_bytes);
  if (total > w - read_index_)
    return DataLoss("result ring: fragment length runs past the published bytes" + where);
  const bool begin = (header.flags & kFragmentBegin) != 0;
  const bool skip = resync_ && !begin;  // the tail of a record a previous consumer had started
  if (!skip) {
    if (begin == in_record_) {
      return DataLoss(std::string("result ring: ") +
                      (begin ? "record begins inside another" : "record continues without a beginning") +
                      where);
    }
    if (pending_.size() + header.payload_bytes > kMaxRecordBytes)
      return DataLoss("result ring: record too large");
    const size_t old = pending_.size();
    pending_.resize(old + header.payload_bytes);
    CopyOut(read_index_ + kFragmentAlign, header.payload_bytes, pending_.data() + old);
    in_record_ = (header.flags & kFragmentEnd) == 0;
    *record_complete = !in_record_;
    resync_ = false;
  } else {
    ++fragments_skipped_;
  }
  read_index_ += total;
  ++next_sequence_;
  SharedWord<uint64_t>(control_map_.data(), kReadIndexOffset).store(read_index_, std::memory_order_seq_cst);
  if (SharedWord<uint32_t>(data_map_.data(), kProducerWaitingOffset).load(std::memory_order_seq_cst) != 0) {
    Signal(fds_.space_event.get());
  }
  return 1;
}

Result<bool> RingConsumer::TryRead(std::vector<uint8_t>* record) {
  while (true) {
    bool complete = false;
    MINERU_ASSIGN_OR_RETURN(int got, ReadFragment(&complete));
    if (got == 0) {
      const uint32_t state =
          SharedWord<uint32_t>(data_map_.data(), kProducerStateOffset).load(std::memory_order_acquire);
      if (state == kProducerClosed) {
        // Closed is stored after the last publish: re-check for bytes published before it.
        const uint64_t w =
            SharedWord<uint64_t>(data_map_.data(), kWriteIndexOffset).load(std::memory_order_acquire);
        if (w != read_index_) continue;
        return Unavailable("result ring closed by the producer");
      }
      return false;
    }
    if (complete) {
      record->swap(pending_);
      pending_.clear();
      ++records_read_;
      return true;
    }
  }
}

Status RingConsumer::Wait(Deadline deadline, int peer_fd) {
  auto waiting = SharedWord<uint32_t>(control_map_.data(), kConsumerWaitingOffset);
  waiting.store(1, std::memory_order_seq_cst);
  const uint64_t w =
      SharedWord<uint64_t>(data_map_.data(), kWriteIndexOffset).load(std::memory_order_seq_cst);
  const uint32_t state =
      SharedWord<uint32_t>(data_map_.data(), kProducerStateOffset).load(std::memory_order_seq_cst);
  if (w != read_index_ || state == kProducerClosed) {
    waiting.store(0, std::memory_order_relaxed);
    return Status::Ok();
  }
  pollfd pfds[2] = {{fds_.data_event.get(), POLLIN, 0}, {peer_fd, POLLRDHUP, 0}};
  const int rc =
      RetryEintr([&] { return poll(pfds, peer_fd >= 0 ? 2 : 1, deadline.RemainingMillisForPoll()); });
  waiting.store(0, std::memory_order_relaxed);
  if (rc < 0) return ErrnoStatus(errno, "poll(result ring)");
  if (rc == 0) return DeadlineExceeded("timed out waiting for a result record");
  if ((pfds[0].revents & POLLIN) != 0) {
    Drain(fds_.data_event.get());
    return Status::Ok();
  }
  // The peer hung up. Whatever it published before is still readable; report only when nothing is.
  const uint64_t now =
      SharedWord<uint64_t>(data_map_.data(), kWriteIndexOffset).load(std::memory_order_acquire);
  if (now != read_index_) return Status::Ok();
  return Unavailable("the result ring's producer hung up");
}

Status RingConsumer::Read(std::vector<uint8_t>* record, Deadline deadline, int peer_fd) {
  while (true) {
    MINERU_ASSIGN_OR_RETURN(bool got, TryRead(record));
    if (got) return Status::Ok();
    MINERU_RETURN_IF_ERROR(Wait(deadline, peer_fd));
  }
}

}  // namespace mineru::shm
