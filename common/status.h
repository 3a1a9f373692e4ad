// Status: the one error type of minerud. A code, a message for people, and the errno that caused it
// (0 when none). Libraries return it; the daemon and the tools decide what to log.
#pragma once

#include <string>
#include <string_view>

namespace mineru {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller (a user, a client, a file) gave something wrong
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kResourceExhausted,  // a budget, a limit, memory or disk space
  kBusy,               // full right now; retry later
  kFailedPrecondition,
  kOutOfRange,
  kCancelled,
  kDeadlineExceeded,
  kDataLoss,     // corrupted or truncated data
  kUnavailable,  // a peer is gone or not reachable
  kUnimplemented,
  kIoError,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message, int sys_errno = 0)
      : code_(code), message_(std::move(message)), sys_errno_(sys_errno) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  int sys_errno() const { return sys_errno_; }

  // "message (errno text)" or "OK".
  std::string ToString() const;
  // The same error with "context: " in front of the message.
  Status WithContext(std::string_view context) const;

  // Marks a status that is deliberately dropped.
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_ && a.sys_errno_ == b.sys_errno_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  int sys_errno_ = 0;
};

// The one errno -> StatusCode mapping.
StatusCode ErrnoToStatusCode(int err);
// "what: strerror(err)" with the mapped code; `err` is kept in the status.
Status ErrnoStatus(int err, std::string_view what);

inline Status InvalidArgument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
inline Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
inline Status PermissionDenied(std::string msg) { return {StatusCode::kPermissionDenied, std::move(msg)}; }
inline Status ResourceExhausted(std::string msg) { return {StatusCode::kResourceExhausted, std::move(msg)}; }
inline Status Busy(std::string msg) { return {StatusCode::kBusy, std::move(msg)}; }
inline Status FailedPrecondition(std::string msg) {
  return {StatusCode::kFailedPrecondition, std::move(msg)};
}
inline Status OutOfRange(std::string msg) { return {StatusCode::kOutOfRange, std::move(msg)}; }
inline Status Cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
inline Status DeadlineExceeded(std::string msg) { return {StatusCode::kDeadlineExceeded, std::move(msg)}; }
inline Status DataLoss(std::string msg) { return {StatusCode::kDataLoss, std::move(msg)}; }
inline Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
inline Status Unimplemented(std::string msg) { return {StatusCode::kUnimplemented, std::move(msg)}; }
inline Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

}  // namespace mineru

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define MINERU_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::mineru::Status mineru_status_ = (expr);        \
    if (!mineru_status_.ok()) return mineru_status_; \
  } while (0)
