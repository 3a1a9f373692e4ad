#include "shm/protocol.h"

#include "shm/ring_layout.h"

namespace mineru::shm {

const char* MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kHello:
      return "hello";
    case MessageType::kHelloReply:
      return "hello-reply";
    case MessageType::kSubmit:
      return "submit";
    case MessageType::kJobAccepted:
      return "job-accepted";
    case MessageType::kPageProgress:
      return "page-progress";
    case MessageType::kPageResultNotice:
      return "page-result";
    case MessageType::kJobDone:
      return "job-done";
    case MessageType::kJobFailed:
      return "job-failed";
    case MessageType::kStatusRequest:
      return "status";
    case MessageType::kStatusReply:
      return "status-reply";
    case MessageType::kListRequest:
      return "list";
    case MessageType::kListReply:
      return "list-reply";
    case MessageType::kCancelRequest:
      return "cancel";
    case MessageType::kCancelReply:
      return "cancel-reply";
    case MessageType::kFetchRequest:
      return "fetch";
    case MessageType::kFetchReply:
      return "fetch-reply";
    case MessageType::kStatsRequest:
      return "stats";
    case MessageType::kStatsReply:
      return "stats-reply";
    case MessageType::kErrorReply:
      return "error";
    case MessageType::kPing:
      return "ping";
    case MessageType::kPong:
      return "pong";
    case MessageType::kGoodbye:
      return "goodbye";
    case MessageType::kWatchRequest:
      return "watch";
    case MessageType::kWatchReply:
      return "watch-reply";
    case MessageType::kBudgetRequest:
      return "budget";
    case MessageType::kBudgetReply:
      return "budget-reply";
    case MessageType::kInfoRequest:
      return "info";
    case MessageType::kInfoReply:
      return "info-reply";
  }
  return "unknown";
}

uint32_t ExpectedFdCount(MessageType type, uint64_t capabilities) {
  switch (type) {
    case MessageType::kSubmit:
      return 1;
    case MessageType::kHelloReply:
      return (capabilities & kCapResultRing) != 0 ? kRingFdCount : 0;
    default:
      return 0;
  }
}

ErrorReply MakeErrorReply(uint64_t request_id, const Status& status, uint32_t retry_after_ms) {
  ErrorReply reply;
  reply.request_id = request_id;
  reply.code = status.ok() ? StatusCode::kInternal : status.code();
  reply.message = status.ok() ? "error reply built from an OK status" : status.ToString();
  if (reply.message.size() > kMaxStringBytes) reply.message.resize(kMaxStringBytes);
  reply.retry_after_ms = retry_after_ms;
  return reply;
}

}  // namespace mineru::shm
