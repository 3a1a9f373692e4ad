#include "shm/ring_producer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "common/syscall.h"
#include "shm/document_buffer.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

namespace mineru::shm {
namespace {

Result<UniqueFd> MakeEventFd() {
  UniqueFd fd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!fd) return ErrnoStatus(errno, "eventfd");
  return fd;
}

Result<UniqueFd> Dup(const UniqueFd& fd) {
  UniqueFd copy(fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
  if (!copy) return ErrnoStatus(errno, "dup");
  return copy;
}

void Signal(int event_fd) {
  const uint64_t one = 1;
  // EAGAIN means the counter is saturated: the peer has a wake-up pending anyway.
  (void)!RetryEintr([&] { return write(event_fd, &one, sizeof(one)); });
}

void Drain(int event_fd) {
  uint64_t value;
  (void)!RetryEintr([&] { return read(event_fd, &value, sizeof(value)); });
}

Result<MappedRegion> CreateSharedFile(UniqueFd& fd, const char* name, uint64_t size) {
  MINERU_ASSIGN_OR_RETURN(fd, CreateMemfd(name));
  if (RetryEintr([&] { return ftruncate(fd.get(), static_cast<off_t>(size)); }) != 0) {
    return ErrnoStatus(errno, std::string("ftruncate ") + name);
  }
  MapOptions options;
  options.writable = true;
  options.populate = true;
  return MappedRegion::Map(fd.get(), options);
}

}  // namespace

Result<RingProducer> RingProducer::Create(const RingOptions& options) {
  uint64_t capacity = std::clamp<uint64_t>(options.capacity_bytes, kMinRingCapacity, kMaxRingCapacity);
  capacity = std::bit_ceil(capacity);
  RingProducer p;
  p.capacity_ = capacity;
  p.max_fragment_bytes_ =
      options.max_fragment_bytes != 0 ? options.max_fragment_bytes : capacity / 4 - kFragmentAlign;
  p.max_fragment_bytes_ = std::clamp<uint64_t>(p.max_fragment_bytes_, 1, capacity - kFragmentAlign);

  MINERU_ASSIGN_OR_RETURN(p.data_map_,
                          CreateSharedFile(p.data_fd_, "minerud-ring", kRingHeaderBytes + capacity));
  RingHeader header{kRingMagic, kRingAbiVersion,  static_cast<uint32_t>(kRingHeaderBytes),
                    capacity,   kRingHeaderBytes, kRingHeaderBytes + capacity};
  std::memcpy(p.data_map_.data(), &header, sizeof(header));
  SharedWord<uint64_t>(p.data_map_.data(), kWriteIndexOffset).store(0, std::memory_order_relaxed);
  SharedWord<uint32_t>(p.data_map_.data(), kProducerStateOffset)
      .store(kProducerOpen, std::memory_order_relaxed);
  SharedWord<uint32_t>(p.data_map_.data(), kProducerWaitingOffset).store(0, std::memory_order_release);
  // From here on nobody can map the data memfd writable again, or resize it; our mapping stays.
  if (fcntl(p.data_fd_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) !=
      0) {
    return ErrnoStatus(errno, "sealing the ring memfd");
  }
  p.ring_ = p.data_map_.data() + kRingHeaderBytes;

  MINERU_ASSIGN_OR_RETURN(p.control_map_,
                          CreateSharedFile(p.control_fd_, "minerud-ring-control", kControlBytes));
  ControlHeader control{kControlMagic, kRingAbiVersion, static_cast<uint32_t>(kControlBytes)};
  std::memcpy(p.control_map_.data(), &control, sizeof(control));
  SharedWord<uint64_t>(p.control_map_.data(), kReadIndexOffset).store(0, std::memory_order_relaxed);
  SharedWord<uint32_t>(p.control_map_.data(), kConsumerWaitingOffset).store(0, std::memory_order_release);
  // The consumer may write the control memfd but never resize it (a shrink would SIGBUS us).
  if (fcntl(p.control_fd_.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return ErrnoStatus(errno, "sealing the ring control memfd");
  }
  MINERU_ASSIGN_OR_RETURN(p.data_event_, MakeEventFd());
  MINERU_ASSIGN_OR_RETURN(p.space_event_, MakeEventFd());
  return p;
}

Result<RingFds> RingProducer::DupFdsForConsumer() const {
  RingFds fds;
  MINERU_ASSIGN_OR_RETURN(fds.data, Dup(data_fd_));
  MINERU_ASSIGN_OR_RETURN(fds.control, Dup(control_fd_));
  MINERU_ASSIGN_OR_RETURN(fds.data_event, Dup(data_event_));
  MINERU_ASSIGN_OR_RETURN(fds.space_event, Dup(space_event_));
  return fds;
}

Result<uint64_t> RingProducer::LoadReadIndex() {
  const uint64_t r =
      SharedWord<uint64_t>(control_map_.data(), kReadIndexOffset).load(std::memory_order_seq_cst);
  // The consumer can write anything here. Accept only an index that moved forward, is aligned and
  // does not pass what we wrote; then w - r <= capacity holds because it held for the last one.
  if (r % kFragmentAlign != 0 || r < last_read_index_ || r > write_index_) {
    return DataLoss("the consumer published an invalid read index " + std::to_string(r) + " (last valid " +
                    std::to_string(last_read_index_) + ", written " + std::to_string(write_index_) + ")");
  }
  last_read_index_ = r;
  return r;
}

Result<uint64_t> RingProducer::FreeBytes() {
  MINERU_ASSIGN_OR_RETURN(uint64_t r, LoadReadIndex());
  return capacity_ - (write_index_ - r);
}

void RingProducer::Publish() {
  SharedWord<uint64_t>(data_map_.data(), kWriteIndexOffset).store(write_index_, std::memory_order_seq_cst);
}

void RingProducer::WakeConsumerIfWaiting() {
  if (SharedWord<uint32_t>(control_map_.data(), kConsumerWaitingOffset).load(std::memory_order_seq_cst) !=
      0) {
    Signal(data_event_.get());
  }
}

Result<bool> RingProducer::TryWrite(std::span<const uint8_t> record, uint64_t* offset) {
  if (closed_) return FailedPrecondition("the ring is closed");
  if (*offset > record.size()) return InvalidArgument("record offset past the end of the record");
  if (in_record_ != (*offset > 0)) {
    return FailedPrecondition(in_record_ ? "a new record started before the previous one was complete"
                                         : "a record continued that was never started");
  }
  if (record.size() > kMaxRecordBytes) return InvalidArgument("record larger than kMaxRecordBytes");
  MINERU_ASSIGN_OR_RETURN(uint64_t r, LoadReadIndex());
  bool wrote = false;
  bool complete = false;
  while (true) {
    const uint64_t free = capacity_ - (write_index_ - r);
    const uint64_t remaining = record.size() - *offset;
    if (free < kFragmentAlign + (remaining > 0 ? 1 : 0)) break;
    const uint64_t chunk = std::min({remaining, free - kFragmentAlign, max_fragment_bytes_});
    FragmentHeader header;
    header.payload_bytes = static_cast<uint32_t>(chunk);
    header.flags =
        static_cast<uint16_t>((in_record_ ? 0 : kFragmentBegin) | (chunk == remaining ? kFragmentEnd : 0));
    header.sequence = next_sequence_;
    header.check = FragmentCheck(header.payload_bytes, header.flags, header.sequence);
    const uint64_t at = write_index_ & (capacity_ - 1);
    std::memcpy(ring_ + at, &header, sizeof(header));
    // The payload may wrap around the end of the ring.
    const uint64_t payload_at = (at + kFragmentAlign) & (capacity_ - 1);
    const uint64_t first = std::min(chunk, capacity_ - payload_at);
    if (first > 0) std::memcpy(ring_ + payload_at, record.data() + *offset, first);
    if (chunk > first) std::memcpy(ring_, record.data() + *offset + first, chunk - first);
    write_index_ += AlignFragment(kFragmentAlign + chunk);
    ++next_sequence_;
    *offset += chunk;
    in_record_ = (header.flags & kFragmentEnd) == 0;
    if (!in_record_) ++records_written_;
    Publish();
    wrote = true;
    if (!in_record_) {
      complete = true;
      break;
    }
  }
  if (wrote) WakeConsumerIfWaiting();
  return complete;
}

bool RingProducer::ArmSpaceWakeup() {
  SharedWord<uint32_t>(data_map_.data(), kProducerWaitingOffset).store(1, std::memory_order_seq_cst);
  auto free = FreeBytes();
  // Space for a header and one byte: TryWrite can make progress. (A forged index reports through TryWrite.)
  if (!free.ok() || *free >= 2 * kFragmentAlign) {
    SharedWord<uint32_t>(data_map_.data(), kProducerWaitingOffset).store(0, std::memory_order_relaxed);
    return true;
  }
  return false;
}

void RingProducer::ConsumeSpaceWakeup() {
  Drain(space_event_.get());
  SharedWord<uint32_t>(data_map_.data(), kProducerWaitingOffset).store(0, std::memory_order_relaxed);
}

Status RingProducer::Write(std::span<const uint8_t> record, Deadline deadline, int peer_fd) {
  uint64_t offset = 0;
  while (true) {
    MINERU_ASSIGN_OR_RETURN(bool complete, TryWrite(record, &offset));
    if (complete) return Status::Ok();
    if (ArmSpaceWakeup()) continue;
    pollfd pfds[2] = {{space_event_.get(), POLLIN, 0}, {peer_fd, POLLRDHUP, 0}};
    const int rc =
        RetryEintr([&] { return poll(pfds, peer_fd >= 0 ? 2 : 1, deadline.RemainingMillisForPoll()); });
    if (rc < 0) return ErrnoStatus(errno, "poll(ring space)");
    if (rc == 0) {
      ConsumeSpaceWakeup();
      return DeadlineExceeded("timed out waiting for the consumer to make room in the ring");
    }
    if (peer_fd >= 0 && (pfds[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0 &&
        (pfds[0].revents & POLLIN) == 0) {
      ConsumeSpaceWakeup();
      return Unavailable("the ring's consumer hung up while the ring was full");
    }
    ConsumeSpaceWakeup();
  }
}

void RingProducer::Close() {
  if (closed_ || !data_map_.data()) return;
  closed_ = true;
  SharedWord<uint32_t>(data_map_.data(), kProducerStateOffset)
      .store(kProducerClosed, std::memory_order_seq_cst);
  Signal(data_event_.get());
}

}  // namespace mineru::shm
