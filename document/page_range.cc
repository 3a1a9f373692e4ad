#include "document/page_range.h"

#include <algorithm>

namespace mineru::document {

std::string PageRange::ToString() const {
  std::string s = "pages " + std::to_string(static_cast<uint64_t>(first) + 1) + "-";
  return s + (last == kToEnd ? std::string("end") : std::to_string(static_cast<uint64_t>(last) + 1));
}

Result<ResolvedPages> ResolvePageRange(const PageRange& range, int page_count) {
  if (range.first > range.last) return InvalidArgument(range.ToString() + " is empty");
  if (page_count <= 0) return InvalidArgument("the document has no pages");
  if (range.first >= static_cast<uint32_t>(page_count)) {
    return InvalidArgument(range.ToString() + " starts past the end: the document has " +
                           std::to_string(page_count) + " page" + (page_count == 1 ? "" : "s"));
  }
  ResolvedPages pages;
  pages.first = static_cast<int>(range.first);
  pages.last = static_cast<int>(std::min<uint64_t>(range.last, static_cast<uint64_t>(page_count) - 1));
  return pages;
}

}  // namespace mineru::document
