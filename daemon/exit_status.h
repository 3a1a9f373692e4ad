// minerud's exit statuses (the sysexits.h values) and which one a failed start gets. A device or a
// resource that is not ready yet (a GPU whose driver is still loading, its memory held by another
// process) is worth a restart: 75, EX_TEMPFAIL, which the unit restarts with back-off. A
// configuration that can never work is not: 78, EX_CONFIG, which the unit does not restart
// (RestartPreventExitStatus=).
#pragma once

#include "common/status.h"

namespace mineru::daemon {

inline constexpr int kExitUsage = 64;
inline constexpr int kExitUnavailable = 69;  // cannot listen on the socket
inline constexpr int kExitSoftware = 70;
inline constexpr int kExitTempFail = 75;
inline constexpr int kExitConfig = 78;

// Whether a start that failed with `status` may succeed later without a change to the configuration:
// kUnavailable (no device yet), kBusy, kResourceExhausted (device or pinned memory held by others).
bool IsTemporaryStartFailure(const Status& status);

// The exit status of a start that failed opening the backend: kExitTempFail when temporary, else
// kExitConfig.
int BackendFailureExitStatus(const Status& status);

}  // namespace mineru::daemon
