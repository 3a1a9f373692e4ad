// The result ring's shared-memory layout: what the producer (daemon) and the consumer (client) map.
//
// Two memfds per session, created by the producer and passed once in HelloReply (RingFds order):
//
//   data memfd  (kHeaderBytes + capacity bytes; sealed SHRINK|GROW|FUTURE_WRITE|SEAL after the
//                producer mapped it, so the consumer can map it read-only and nothing else)
//     [0, 64)     RingHeader: magic, ABI version, sizes                (written once by the producer)
//     [64, 128)   write_index, producer_state                          (producer's cache line)
//     [128, 192)  producer_waiting                                     (producer's flag)
//     [4096, 4096 + capacity)  records
//
//   control memfd (kControlBytes; sealed SHRINK|GROW|SEAL, writable by the consumer)
//     [0, 64)     magic, ABI version
//     [64, 128)   read_index                                           (consumer's cache line)
//     [128, 192)  consumer_waiting                                     (consumer's flag)
//
// Indices are byte counts since the ring was created (never wrap; offset = index % capacity).
// The capacity is a power of two >= 4096. A fragment starts on a 16-byte boundary with a 16-byte
// FragmentHeader (never split by the wrap) followed by its payload (which may wrap). A record is one
// or more fragments, the first flagged kBegin and the last kEnd.
//
// Only lock-free atomics live in shared memory: no mutex, so a killed peer cannot poison the segment.
// Nothing the consumer can write is trusted by the producer: read_index is validated against the
// producer's private write index on every use (monotonic, aligned, within one capacity). Nothing the
// producer wrote is trusted by the consumer: every fragment's check word, length and sequence number
// is verified, so a torn or forged record is reported as kDataLoss, never read out of bounds.
//
// Wake-ups: two eventfds. The producer writes data_event after publishing when consumer_waiting is
// set; the consumer writes space_event after consuming when producer_waiting is set. Waits also watch
// the peer's socket for hang-up, so a killed peer ends a wait with kUnavailable instead of a hang.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/unique_fd.h"

namespace mineru::shm {

inline constexpr uint64_t kRingMagic = 0x31474e4952555247ull;   // "GRURING1"
inline constexpr uint64_t kControlMagic = 0x314c5443555247ull;  // "GRUCTL1"
inline constexpr uint32_t kRingAbiVersion = 1;
inline constexpr uint64_t kRingHeaderBytes = 4096;
inline constexpr uint64_t kControlBytes = 4096;
inline constexpr uint64_t kMinRingCapacity = 4096;
inline constexpr uint64_t kMaxRingCapacity = 1ull << 32;
inline constexpr uint64_t kFragmentAlign = 16;
inline constexpr uint32_t kRingFdCount = 4;

// Fixed offsets inside the data memfd.
inline constexpr uint64_t kWriteIndexOffset = 64;
inline constexpr uint64_t kProducerStateOffset = 72;
inline constexpr uint64_t kProducerWaitingOffset = 128;
// Fixed offsets inside the control memfd.
inline constexpr uint64_t kReadIndexOffset = 64;
inline constexpr uint64_t kConsumerWaitingOffset = 128;

struct RingHeader {
  uint64_t magic;
  uint32_t abi_version;
  uint32_t header_bytes;    // kRingHeaderBytes
  uint64_t capacity_bytes;  // power of two
  uint64_t data_offset;     // kRingHeaderBytes
  uint64_t total_bytes;     // data_offset + capacity_bytes = the memfd's size
};
static_assert(sizeof(RingHeader) <= kWriteIndexOffset);

struct ControlHeader {
  uint64_t magic;
  uint32_t abi_version;
  uint32_t control_bytes;  // kControlBytes
};

enum ProducerState : uint32_t { kProducerOpen = 1, kProducerClosed = 2 };

enum FragmentFlags : uint16_t { kFragmentBegin = 1, kFragmentEnd = 2 };

struct FragmentHeader {
  uint32_t payload_bytes;
  uint16_t flags;     // FragmentFlags
  uint16_t check;     // FragmentCheck(payload_bytes, flags, sequence)
  uint64_t sequence;  // fragment number since the ring was created, from 0
};
static_assert(sizeof(FragmentHeader) == kFragmentAlign);

// A 16-bit check over the header fields; detects a torn or scribbled header.
inline uint16_t FragmentCheck(uint32_t payload_bytes, uint16_t flags, uint64_t sequence) {
  uint64_t x = (uint64_t{payload_bytes} << 16) ^ flags ^ (sequence * 0x9E3779B97F4A7C15ull) ^ 0xA5A5;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return static_cast<uint16_t>(x ^ (x >> 16));
}

inline uint64_t AlignFragment(uint64_t n) { return (n + kFragmentAlign - 1) & ~(kFragmentAlign - 1); }

// The fds of one ring, in the order HelloReply carries them.
struct RingFds {
  UniqueFd data;         // index 0
  UniqueFd control;      // index 1
  UniqueFd data_event;   // index 2: producer -> consumer wake-up
  UniqueFd space_event;  // index 3: consumer -> producer wake-up
};

// An atomic view of a word in a mapping (the consumer's data mapping is read-only: only loads there).
template <typename T>
std::atomic_ref<T> SharedWord(const uint8_t* base, uint64_t offset) {
  return std::atomic_ref<T>(*reinterpret_cast<T*>(const_cast<uint8_t*>(base) + offset));
}

// The consumer refuses records larger than this (protects it from a runaway producer).
inline constexpr uint64_t kMaxRecordBytes = 1ull << 32;

static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "the ring needs lock-free 64-bit atomics");

}  // namespace mineru::shm
