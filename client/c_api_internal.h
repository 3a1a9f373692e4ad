// What the C API's files share: the handles behind the opaque types, error mapping, the exception
// guard and the size-versioned struct rules (include/mineru/client_c.h, its opening note).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "mineru/client.h"
#include "mineru/client_c.h"

struct mineru_client {
  mineru::client::Client client;
  std::string last_error;
  // What the pointers of the last mineru_client_status / mineru_client_next_event point into.
  mineru::client::JobStatus last_status;
  mineru::client::JobEvent last_event;
  mineru_page last_page{};
};

namespace mineru::client::c_api {

// This thread's last failed connect or buffer creation (mineru_client_last_error(NULL)).
std::string& ThreadLastError();

inline int Code(const Status& s) { return s.ok() ? 0 : -static_cast<int>(s.code()); }

// Keeps `s`'s message where mineru_client_last_error finds it; returns its code.
inline int Fail(mineru_client* c, const Status& s) {
  (c != nullptr ? c->last_error : ThreadLastError()) = s.message();
  return Code(s);
}

// Runs `f`, turning an exception (an allocation failure) into a code.
template <typename F>
int Guard(mineru_client* c, F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Fail(c, Status(StatusCode::kResourceExhausted, "out of memory"));
  } catch (...) {
    return Fail(c, Internal("internal error"));
  }
}

// Reads a caller's size-versioned options struct over `*out` (which holds the defaults): only the
// caller's struct_size bytes; at least `first_version_bytes`; bytes past this library's struct must be
// zero (an option this library does not know).
template <typename T>
int ReadSized(const T* in, size_t first_version_bytes, T* out) {
  if (in == nullptr || in->struct_size < first_version_bytes) return -MINERU_ERR_INVALID_ARGUMENT;
  const auto* bytes = reinterpret_cast<const unsigned char*>(in);
  if (std::any_of(bytes + std::min(in->struct_size, sizeof(T)), bytes + in->struct_size,
                  [](unsigned char b) { return b != 0; })) {
    return -MINERU_ERR_INVALID_ARGUMENT;
  }
  std::memcpy(static_cast<void*>(out), in, std::min(in->struct_size, sizeof(T)));
  out->struct_size = sizeof(T);
  return 0;
}

// Writes `full` into a caller's size-versioned struct: only the members its struct_size holds.
template <typename T>
int WriteSized(const T& full, size_t first_version_bytes, T* out) {
  if (out == nullptr || out->struct_size < first_version_bytes) return -MINERU_ERR_INVALID_ARGUMENT;
  const size_t caller_size = out->struct_size;
  std::memcpy(static_cast<void*>(out), &full, std::min(caller_size, sizeof(T)));
  out->struct_size = caller_size;
  return 0;
}

// The size of each struct's first version (members are only added at the end).
inline constexpr size_t kConnectOptionsV1 = offsetof(mineru_connect_options, connect_timeout_ms) + 8;
inline constexpr size_t kSubmitOptionsV1 = offsetof(mineru_submit_options, last_page) + 4;
inline constexpr size_t kJobStatusV1 = offsetof(mineru_job_status, error) + sizeof(const char*);
inline constexpr size_t kTierStatsV1 = offsetof(mineru_tier_stats, units_resident) + 4;
inline constexpr size_t kEventV1 = offsetof(mineru_event, page) + sizeof(const mineru_page*);

// A job's status as the C API shows it; the strings point into `s`.
mineru_job_status ToC(const JobStatus& s);

}  // namespace mineru::client::c_api
