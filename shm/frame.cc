#include "shm/frame.h"

#include <bit>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "shm/wire_archive.h"

namespace mineru::shm {
namespace {

static_assert(std::endian::native == std::endian::little, "the wire format is little-endian");

constexpr uint16_t kFirstType = static_cast<uint16_t>(MessageType::kHello);
constexpr uint16_t kLastType = static_cast<uint16_t>(MessageType::kInfoReply);
static_assert(std::variant_size_v<Message> == kLastType - kFirstType + 1, "one alternative per type");

template <typename T>
void Put(uint8_t* out, uint64_t offset, T value) {
  std::memcpy(out + offset, &value, sizeof(T));
}
template <typename T>
T Get(const uint8_t* in, uint64_t offset) {
  T value;
  std::memcpy(&value, in + offset, sizeof(T));
  return value;
}

// Decodes alternative I of Message when its kType is `type`.
template <size_t I = 0>
Result<Message> DecodeAs(MessageType type, std::span<const uint8_t> payload) {
  if constexpr (I == std::variant_size_v<Message>) {
    return InvalidArgument("unknown message type " + std::to_string(static_cast<unsigned>(type)));
  } else {
    using T = std::variant_alternative_t<I, Message>;
    if (T::kType != type) return DecodeAs<I + 1>(type, payload);
    T value;
    WireInputArchive archive(payload);
    try {
      archive(value);
    } catch (const cereal::Exception& e) {
      return Status(StatusCode::kDataLoss,
                    std::string("malformed ") + MessageTypeName(type) + " payload: " + e.what());
    } catch (const std::exception& e) {  // allocation failures inside cereal's containers
      return Status(StatusCode::kResourceExhausted,
                    std::string("cannot decode ") + MessageTypeName(type) + " payload: " + e.what());
    }
    if (archive.remaining() != 0) {
      return DataLoss(std::to_string(archive.remaining()) + " trailing bytes after a " +
                      MessageTypeName(type) + " payload");
    }
    return Message(std::move(value));
  }
}

Status CheckString(const std::string& s, const char* field) {
  if (s.size() > kMaxStringBytes) {
    return InvalidArgument(std::string(field) + " is " + std::to_string(s.size()) + " bytes; at most " +
                           std::to_string(kMaxStringBytes) + " allowed");
  }
  return Status::Ok();
}

Status CheckCode(StatusCode code, bool allow_ok, const char* field) {
  if (static_cast<uint32_t>(code) > static_cast<uint32_t>(StatusCode::kInternal) ||
      (!allow_ok && code == StatusCode::kOk)) {
    return InvalidArgument(std::string(field) + " has invalid status code " +
                           std::to_string(static_cast<uint32_t>(code)));
  }
  return Status::Ok();
}

Status CheckOutputs(uint32_t outputs) {
  if (outputs == 0 || (outputs & ~static_cast<uint32_t>(kAllOutputs)) != 0) {
    return InvalidArgument("outputs bitmask " + std::to_string(outputs) + " is empty or has unknown bits");
  }
  return Status::Ok();
}

// A base name the client will use for output files: no path separators or control characters.
Status CheckDocumentName(const std::string& name) {
  if (name.size() > 255) return InvalidArgument("document_name is longer than 255 bytes");
  for (unsigned char c : name) {
    if (c == '/' || c < 0x20 || c == 0x7f) {
      return InvalidArgument("document_name contains '/' or a control character");
    }
  }
  if (name == "." || name == "..") return InvalidArgument("document_name may not be '.' or '..'");
  return Status::Ok();
}

Status CheckJobInfo(const JobInfo& job) {
  if (static_cast<uint8_t>(job.state) > kMaxJobState) {
    return InvalidArgument("job state " + std::to_string(static_cast<unsigned>(job.state)) + " is unknown");
  }
  MINERU_RETURN_IF_ERROR(CheckString(job.document_name, "document_name"));
  MINERU_RETURN_IF_ERROR(CheckString(job.backend, "backend"));
  MINERU_RETURN_IF_ERROR(CheckString(job.error_message, "error_message"));
  return CheckCode(job.error_code, /*allow_ok=*/true, "job error_code");
}

struct Validator {
  Status operator()(const Hello& m) const {
    if (m.min_version > m.max_version) return InvalidArgument("hello: min_version > max_version");
    return CheckString(m.client_name, "client_name");
  }
  Status operator()(const HelloReply& m) const { return CheckString(m.daemon_version, "daemon_version"); }
  Status operator()(const SubmitRequest& m) const {
    MINERU_RETURN_IF_ERROR(CheckDocumentName(m.document_name));
    MINERU_RETURN_IF_ERROR(CheckString(m.media_type, "media_type"));
    if (m.backend.empty() || m.backend.size() > 64) return InvalidArgument("backend name must be 1-64 bytes");
    if (m.document_bytes == 0) return InvalidArgument("document_bytes is 0");
    if (m.document_bytes > kMaxDocumentBytes)
      return InvalidArgument("document_bytes exceeds the protocol cap");
    if (m.first_page > m.last_page) {
      return InvalidArgument("page range " + std::to_string(m.first_page) + ".." +
                             std::to_string(m.last_page) + " is empty");
    }
    return CheckOutputs(m.outputs);
  }
  Status operator()(const JobFailed& m) const {
    MINERU_RETURN_IF_ERROR(CheckCode(m.code, /*allow_ok=*/false, "job-failed code"));
    return CheckString(m.message, "message");
  }
  Status operator()(const StatusReply& m) const { return CheckJobInfo(m.job); }
  Status operator()(const WatchReply& m) const { return CheckJobInfo(m.job); }
  Status operator()(const BudgetRequest& m) const {
    return m.vram_budget_bytes == 0 ? InvalidArgument("a VRAM budget of 0 bytes") : Status::Ok();
  }
  Status operator()(const InfoReply& m) const {
    MINERU_RETURN_IF_ERROR(CheckString(m.daemon_version, "daemon_version"));
    MINERU_RETURN_IF_ERROR(CheckString(m.backend, "backend"));
    MINERU_RETURN_IF_ERROR(CheckString(m.model_dir, "model_dir"));
    return CheckString(m.model, "model");
  }
  Status operator()(const ListReply& m) const {
    if (m.jobs.size() > kMaxListItems) return InvalidArgument("too many jobs in a list reply");
    for (const JobInfo& job : m.jobs) MINERU_RETURN_IF_ERROR(CheckJobInfo(job));
    return Status::Ok();
  }
  Status operator()(const CancelReply& m) const {
    if (m.cancelled_job_ids.size() > kMaxListItems) return InvalidArgument("too many job ids");
    return Status::Ok();
  }
  Status operator()(const FetchRequest& m) const { return CheckOutputs(m.outputs); }
  Status operator()(const StatsReply& m) const {
    if (m.counters.size() > kMaxListItems || m.tiers.size() > kMaxListItems) {
      return InvalidArgument("too many stats entries");
    }
    for (const auto& [key, value] : m.counters) MINERU_RETURN_IF_ERROR(CheckString(key, "counter name"));
    for (const TierStats& tier : m.tiers) MINERU_RETURN_IF_ERROR(CheckString(tier.tier, "tier name"));
    return Status::Ok();
  }
  Status operator()(const ErrorReply& m) const {
    MINERU_RETURN_IF_ERROR(CheckCode(m.code, /*allow_ok=*/false, "error code"));
    return CheckString(m.message, "message");
  }
  Status operator()(const Ping& m) const { return CheckString(m.padding, "padding"); }
  Status operator()(const Pong& m) const { return CheckString(m.padding, "padding"); }
  Status operator()(const Goodbye& m) const { return CheckString(m.reason, "reason"); }
  // Messages made only of integers have nothing more to check.
  template <typename T>
  Status operator()(const T&) const {
    return Status::Ok();
  }
};

}  // namespace

void WriteFrameHeader(const FrameHeader& header, uint8_t* out) {
  Put<uint32_t>(out, 0, header.magic);
  Put<uint16_t>(out, 4, header.version);
  Put<uint16_t>(out, 6, static_cast<uint16_t>(header.type));
  Put<uint32_t>(out, 8, header.num_fds);
  Put<uint32_t>(out, 12, header.reserved);
  Put<uint64_t>(out, 16, header.payload_bytes);
}

Result<FrameHeader> ParseFrameHeader(std::span<const uint8_t> bytes, const FrameLimits& limits) {
  if (bytes.size() < kFrameHeaderBytes) {
    return DataLoss("frame header truncated: " + std::to_string(bytes.size()) + " of " +
                    std::to_string(kFrameHeaderBytes) + " bytes");
  }
  const uint8_t* p = bytes.data();
  FrameHeader h;
  h.magic = Get<uint32_t>(p, 0);
  h.version = Get<uint16_t>(p, 4);
  const uint16_t type = Get<uint16_t>(p, 6);
  h.num_fds = Get<uint32_t>(p, 8);
  h.reserved = Get<uint32_t>(p, 12);
  h.payload_bytes = Get<uint64_t>(p, 16);
  if (h.magic != kFrameMagic) return InvalidArgument("not a minerud frame (bad magic)");
  if (h.version != kProtocolVersion) {
    return Status(StatusCode::kUnimplemented, "unsupported protocol version " + std::to_string(h.version) +
                                                  " (this side speaks version " +
                                                  std::to_string(kProtocolVersion) + ")");
  }
  if (h.reserved != 0) return InvalidArgument("frame header reserved field is not 0");
  if (type < kFirstType || type > kLastType) {
    return InvalidArgument("unknown message type " + std::to_string(type));
  }
  h.type = static_cast<MessageType>(type);
  if (h.num_fds > limits.max_fds) {
    return InvalidArgument("frame announces " + std::to_string(h.num_fds) + " fds; at most " +
                           std::to_string(limits.max_fds) + " allowed");
  }
  if (h.payload_bytes > limits.max_payload_bytes) {
    return ResourceExhausted("frame payload of " + std::to_string(h.payload_bytes) + " bytes exceeds the " +
                             std::to_string(limits.max_payload_bytes) + "-byte limit");
  }
  return h;
}

void EncodeFrameInto(const Message& message, uint32_t num_fds, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  out.resize(start + kFrameHeaderBytes);
  {
    WireOutputArchive archive(out);
    std::visit([&archive](const auto& m) { archive(m); }, message);
  }
  FrameHeader header;
  header.type = TypeOf(message);
  header.num_fds = num_fds;
  header.payload_bytes = out.size() - start - kFrameHeaderBytes;
  WriteFrameHeader(header, out.data() + start);
}

std::vector<uint8_t> EncodeFrame(const Message& message, uint32_t num_fds) {
  std::vector<uint8_t> out;
  EncodeFrameInto(message, num_fds, out);
  return out;
}

Result<Message> DecodePayload(MessageType type, std::span<const uint8_t> payload) {
  if (payload.size() > kMaxFramePayloadBytes) return ResourceExhausted("payload exceeds the frame limit");
  MINERU_ASSIGN_OR_RETURN(Message message, DecodeAs(type, payload));
  Status valid = ValidateMessage(message);
  if (!valid.ok()) return valid.WithContext(MessageTypeName(type));
  return message;
}

Result<Message> DecodeFrame(const Frame& frame) {
  if (frame.fds.size() != frame.header.num_fds) {
    return InvalidArgument("frame announces " + std::to_string(frame.header.num_fds) + " fds but " +
                           std::to_string(frame.fds.size()) + " arrived");
  }
  if (frame.payload.size() != frame.header.payload_bytes) return DataLoss("frame payload size mismatch");
  MINERU_ASSIGN_OR_RETURN(Message message, DecodePayload(frame.header.type, frame.payload));
  uint64_t capabilities = 0;
  if (const auto* reply = std::get_if<HelloReply>(&message)) capabilities = reply->capabilities;
  const uint32_t expected = ExpectedFdCount(frame.header.type, capabilities);
  if (frame.header.num_fds != expected) {
    return InvalidArgument(std::string("a ") + MessageTypeName(frame.header.type) + " frame must carry " +
                           std::to_string(expected) + " fds, not " + std::to_string(frame.header.num_fds));
  }
  return message;
}

Result<Message> DecodeFrameBytes(std::span<const uint8_t> bytes, uint32_t num_fds_received) {
  MINERU_ASSIGN_OR_RETURN(FrameHeader header, ParseFrameHeader(bytes));
  const uint64_t body = bytes.size() - kFrameHeaderBytes;
  if (body < header.payload_bytes) {
    return DataLoss("frame truncated: payload has " + std::to_string(body) + " of " +
                    std::to_string(header.payload_bytes) + " bytes");
  }
  if (body > header.payload_bytes) return DataLoss("bytes after the end of the frame");
  if (header.num_fds != num_fds_received) {
    return InvalidArgument("frame announces " + std::to_string(header.num_fds) + " fds but " +
                           std::to_string(num_fds_received) + " arrived");
  }
  MINERU_ASSIGN_OR_RETURN(Message message, DecodePayload(header.type, bytes.subspan(kFrameHeaderBytes)));
  uint64_t capabilities = 0;
  if (const auto* reply = std::get_if<HelloReply>(&message)) capabilities = reply->capabilities;
  if (header.num_fds != ExpectedFdCount(header.type, capabilities)) {
    return InvalidArgument(std::string("a ") + MessageTypeName(header.type) +
                           " frame carries the wrong number of fds");
  }
  return message;
}

Status ValidateMessage(const Message& message) { return std::visit(Validator{}, message); }

}  // namespace mineru::shm
