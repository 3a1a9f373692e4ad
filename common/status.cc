#include "common/status.h"

#include <cerrno>
#include <cstring>

namespace mineru {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kAlreadyExists:
      return "already exists";
    case StatusCode::kPermissionDenied:
      return "permission denied";
    case StatusCode::kResourceExhausted:
      return "resource exhausted";
    case StatusCode::kBusy:
      return "busy";
    case StatusCode::kFailedPrecondition:
      return "failed precondition";
    case StatusCode::kOutOfRange:
      return "out of range";
    case StatusCode::kCancelled:
      return "cancelled";
    case StatusCode::kDeadlineExceeded:
      return "deadline exceeded";
    case StatusCode::kDataLoss:
      return "data loss";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kUnimplemented:
      return "unimplemented";
    case StatusCode::kIoError:
      return "I/O error";
    case StatusCode::kInternal:
      return "internal error";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = message_.empty() ? std::string(StatusCodeName(code_)) : message_;
  if (sys_errno_ != 0 && out.find(std::strerror(sys_errno_)) == std::string::npos) {
    out += " (";
    out += std::strerror(sys_errno_);
    out += ")";
  }
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string msg(context);
  msg += ": ";
  msg += message_;
  return Status(code_, std::move(msg), sys_errno_);
}

StatusCode ErrnoToStatusCode(int err) {
  switch (err) {
    case 0:
      return StatusCode::kOk;
    case EINVAL:
    case EBADF:
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
    case ENOTSOCK:
    case EFAULT:
    case ENOEXEC:
    case ESPIPE:
      return StatusCode::kInvalidArgument;
    case ENOENT:
    case ENXIO:
    case ESRCH:
    case ENODEV:
      return StatusCode::kNotFound;
    case EEXIST:
    case EADDRINUSE:
      return StatusCode::kAlreadyExists;
    case EACCES:
    case EPERM:
    case EROFS:
      return StatusCode::kPermissionDenied;
    case ENOMEM:
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case EFBIG:
    case E2BIG:
    case ENOBUFS:
      return StatusCode::kResourceExhausted;
    case EAGAIN:
    case EBUSY:
    case ETXTBSY:
      return StatusCode::kBusy;
    case ERANGE:
    case EOVERFLOW:
      return StatusCode::kOutOfRange;
    case ECANCELED:
    case EINTR:
      return StatusCode::kCancelled;
    case ETIMEDOUT:
      return StatusCode::kDeadlineExceeded;
    case ECONNREFUSED:
    case ECONNRESET:
    case EPIPE:
    case ENOTCONN:
    case ESHUTDOWN:
    case EHOSTUNREACH:
    case ENETDOWN:
      return StatusCode::kUnavailable;
    case ENOSYS:
    case EOPNOTSUPP:
      return StatusCode::kUnimplemented;
    case EIO:
    case ENOTBLK:
      return StatusCode::kIoError;
    default:
      return StatusCode::kInternal;
  }
}

Status ErrnoStatus(int err, std::string_view what) {
  std::string msg(what);
  msg += ": ";
  msg += std::strerror(err);
  return Status(ErrnoToStatusCode(err), std::move(msg), err);
}

}  // namespace mineru
