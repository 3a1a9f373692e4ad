// Sending and receiving bytes with file descriptors over a Unix stream socket (sendmsg/recvmsg with
// SCM_RIGHTS). Both work on blocking and non-blocking sockets and never raise SIGPIPE.
//
// Receive rules: fds are received close-on-exec; if the kernel truncated the control data
// (MSG_CTRUNC: more fds than room, or the fd limit reached) every fd that did arrive is closed and
// the call fails; control messages other than SCM_RIGHTS are refused the same way.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"

namespace mineru::shm {

// Sends all of `bytes`; `fds` (borrowed, not closed) travel with the first byte. On a non-blocking
// socket, waits for writability with poll() until `timeout_ms` (-1 = forever) expires.
// Errors: kUnavailable (peer gone: EPIPE/ECONNRESET), kDeadlineExceeded, kInvalidArgument (> 253 fds).
Status SendWithFds(int socket_fd, std::span<const uint8_t> bytes, std::span<const int> fds = {},
                   int timeout_ms = -1);

struct Received {
  uint64_t bytes = 0;  // bytes written into the buffer; 0 with eof = peer closed
  bool eof = false;
  bool would_block = false;   // non-blocking socket with nothing to read
  std::vector<UniqueFd> fds;  // fds that came with these bytes
};

// One recvmsg into `buffer`, accepting up to `max_fds` fds (at most 253).
// Errors: kDataLoss (MSG_CTRUNC; the fds that arrived are closed), kInvalidArgument (a control
// message that is not SCM_RIGHTS), kUnavailable (ECONNRESET), others from errno.
Result<Received> RecvWithFds(int socket_fd, std::span<uint8_t> buffer, uint32_t max_fds = 253);

// A connected pair of AF_UNIX stream sockets (close-on-exec), for tests, benchmarks and fork().
Result<std::pair<UniqueFd, UniqueFd>> SocketPair();

// Sets or clears O_NONBLOCK.
Status SetNonBlocking(int fd, bool non_blocking);

}  // namespace mineru::shm
