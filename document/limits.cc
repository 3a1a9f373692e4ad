#include "document/limits.h"

namespace mineru::document {

Status ValidateLimits(const DocumentLimits& limits) {
  if (limits.max_memory_bytes < (uint64_t{16} << 20)) {
    return InvalidArgument("document memory cap must be at least 16 MiB, got " +
                           std::to_string(limits.max_memory_bytes) + " bytes");
  }
  if (limits.time_budget_ms < 0) {
    return InvalidArgument("document time budget must be >= 0 ms (0 = none), got " +
                           std::to_string(limits.time_budget_ms));
  }
  if (limits.max_pages < 1) {
    return InvalidArgument("document page cap must be >= 1, got " + std::to_string(limits.max_pages));
  }
  if (limits.max_pixels_per_page < 1) return InvalidArgument("pixel cap per page must be >= 1");
  if (limits.password.size() > 1024) return InvalidArgument("password longer than 1024 bytes");
  return Status::Ok();
}

}  // namespace mineru::document
