#include "common/unique_fd.h"

#include <unistd.h>

namespace mineru {

void UniqueFd::reset(int fd) {
  int old = std::exchange(fd_, fd);
  // close() is not retried on EINTR: on Linux the fd is released even then.
  if (old >= 0) ::close(old);
}

}  // namespace mineru
