// PageRange: which pages of a document a job parses, 0-based and inclusive, as the submit frame carries
// them. Resolve() checks it against the document's page count: the range must start inside the
// document; an end past the last page means "to the end".
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"

namespace mineru::document {

struct PageRange {
  static constexpr uint32_t kToEnd = UINT32_MAX;
  uint32_t first = 0;
  uint32_t last = kToEnd;

  bool whole() const { return first == 0 && last == kToEnd; }
  // "pages 3-7" (1-based, as people count) or "pages 3-end".
  std::string ToString() const;
  bool operator==(const PageRange&) const = default;
};

// The pages [first, last] of a document of `page_count` pages. kInvalidArgument when first > last or
// the range starts past the last page.
struct ResolvedPages {
  int first = 0;
  int last = -1;  // inclusive
  int count() const { return last - first + 1; }
};
Result<ResolvedPages> ResolvePageRange(const PageRange& range, int page_count);

}  // namespace mineru::document
