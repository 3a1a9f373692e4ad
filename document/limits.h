// DocumentLimits: what one untrusted PDF may cost. Every field is checked before MuPDF sees the bytes;
// a document that runs past a limit fails with a clear error (kResourceExhausted, kDeadlineExceeded) and
// the process carries on.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace mineru::document {

struct DocumentLimits {
  // Bytes MuPDF may hold at once for this document (its own allocator counts every allocation).
  uint64_t max_memory_bytes = uint64_t{1} << 30;
  // Wall time for opening and parsing the whole document; 0 = no budget. Enforced with fz_cookie abort
  // during page work and by failing MuPDF allocations once it has passed.
  int64_t time_budget_ms = 120'000;
  // Documents with more pages are refused (their page count is never trusted for allocation).
  int max_pages = 2000;
  // Width x height of one rendered page (RGB); a render that would be larger fails.
  uint64_t max_pixels_per_page = 40'000'000;
  // Password for encrypted documents; empty = none.
  std::string password;
};

// OK when every field is in range (memory >= 16 MiB, pages >= 1, pixels >= 1, time >= 0).
Status ValidateLimits(const DocumentLimits& limits);

// A cancellation flag the caller may set from any thread; MuPDF work stops at its next allocation,
// at the next cookie check, or at the next page.
using CancelFlag = std::atomic<bool>;

}  // namespace mineru::document
