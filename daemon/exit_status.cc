#include "daemon/exit_status.h"

namespace mineru::daemon {

bool IsTemporaryStartFailure(const Status& status) {
  switch (status.code()) {
    case StatusCode::kUnavailable:
    case StatusCode::kBusy:
    case StatusCode::kResourceExhausted:
      return true;
    default:
      return false;
  }
}

int BackendFailureExitStatus(const Status& status) {
  return IsTemporaryStartFailure(status) ? kExitTempFail : kExitConfig;
}

}  // namespace mineru::daemon
