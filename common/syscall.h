// The one syscall wrapper: retries a call that failed with EINTR. Returns what the call returned;
// errno is left as the call set it.
#pragma once

#include <cerrno>
#include <utility>

namespace mineru {

template <typename F>
auto RetryEintr(F&& call) -> decltype(call()) {
  decltype(call()) rc;
  do {
    rc = call();
  } while (rc == -1 && errno == EINTR);
  return rc;
}

}  // namespace mineru
