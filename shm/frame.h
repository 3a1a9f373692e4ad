// Frames: the unit on the control socket. A fixed little-endian header, then a cereal-encoded message.
//
//   offset  size  field
//   0       4     magic          kFrameMagic
//   4       2     version        kProtocolVersion
//   6       2     type           MessageType
//   8       4     num_fds        fds sent with SCM_RIGHTS alongside the frame's first byte
//   12      4     reserved       0
//   16      8     payload_bytes  <= kMaxFramePayloadBytes
//   24      ...   payload        the message (shm/wire_archive.h), exactly payload_bytes bytes
//
// Decoding checks, in order and before allocating: magic, version, reserved, type, num_fds, payload
// length; then the payload decodes with every length bounded by the bytes left, and the message is
// validated (ValidateMessage). All functions here are pure: callable from any thread, no syscalls.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "shm/protocol.h"

namespace mineru::shm {

inline constexpr uint64_t kFrameHeaderBytes = 24;

struct FrameHeader {
  uint32_t magic = kFrameMagic;
  uint16_t version = kProtocolVersion;
  MessageType type = MessageType::kHello;
  uint32_t num_fds = 0;
  uint32_t reserved = 0;
  uint64_t payload_bytes = 0;
};

// Limits a receiver applies; defaults are the protocol's.
struct FrameLimits {
  uint64_t max_payload_bytes = kMaxFramePayloadBytes;
  uint32_t max_fds = kMaxFdsPerFrame;
};

// A complete received frame: header, payload bytes and the fds that came with it (owned).
struct Frame {
  FrameHeader header;
  std::vector<uint8_t> payload;
  std::vector<UniqueFd> fds;
};

// Writes the header into `out` (kFrameHeaderBytes bytes).
void WriteFrameHeader(const FrameHeader& header, uint8_t* out);
// Parses and checks the 24 header bytes. Errors: kInvalidArgument (magic, reserved, type, fd count),
// kUnimplemented (another protocol version, named in the message), kResourceExhausted (payload too long).
Result<FrameHeader> ParseFrameHeader(std::span<const uint8_t> bytes, const FrameLimits& limits = {});

// Serialises `message` into a whole frame (header + payload) that announces `num_fds` fds.
std::vector<uint8_t> EncodeFrame(const Message& message, uint32_t num_fds = 0);
// Appends the frame to `out` instead (reuses its capacity).
void EncodeFrameInto(const Message& message, uint32_t num_fds, std::vector<uint8_t>& out);

// Decodes a payload of message type `type`. Errors: kDataLoss (truncated payload, trailing bytes),
// kResourceExhausted (a length beyond the caps), kInvalidArgument (a field out of range).
Result<Message> DecodePayload(MessageType type, std::span<const uint8_t> payload);

// Decodes `frame` and checks that it carries the number of fds its message type requires.
Result<Message> DecodeFrame(const Frame& frame);

// Decodes one whole frame held in `bytes` (header + payload, nothing more), for tests and fuzzing.
// `num_fds_received` is the number of fds that came with it.
Result<Message> DecodeFrameBytes(std::span<const uint8_t> bytes, uint32_t num_fds_received = 0);

// Checks the values of a decoded message (enum ranges, string caps, page range order, kOk not used as
// an error code). DecodePayload calls it; a sender may call it before sending.
Status ValidateMessage(const Message& message);

}  // namespace mineru::shm
