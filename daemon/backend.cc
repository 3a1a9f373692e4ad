#include "daemon/backend.h"

namespace mineru::daemon {

Status ValidateOutputPath(std::string_view path) {
  if (path.empty() || path.size() > 1024) return InvalidArgument("output path must be 1-1024 bytes");
  if (path.front() == '/') return InvalidArgument("output path must be relative");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return InvalidArgument("output path '" + std::string(path) + "' has an empty, '.' or '..' component");
    }
    start = end + 1;
  }
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\') {
      return InvalidArgument("output path has a control character or a backslash");
    }
  }
  return Status::Ok();
}

}  // namespace mineru::daemon
