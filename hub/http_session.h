// HttpSession: the hub's HTTP(S) transport, one libcurl easy handle reused for every request of a
// pull (one connection kept alive). Redirects are followed (hubs send large files to a CDN); a
// transfer that moves nothing for `stall_timeout_s` is abandoned. Errors are Status values:
// unreachable host, reset connection or a 5xx -> kUnavailable, 404 -> kNotFound, 401/403 ->
// kPermissionDenied. Used by one thread at a time. libcurl stays in hub/ (mineructl links it; the
// client library does not).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "common/result.h"

namespace mineru::hub {

struct HttpOptions {
  int64_t connect_timeout_ms = 15'000;
  int64_t stall_timeout_s = 60;
  std::string user_agent = "mineructl";
};

// Receives a download's body. Begin() is called once the server has answered, before any byte:
// `from_offset` is true when it sends the requested range, false when it sends the whole file
// (then the receiver starts over).
class DownloadSink {
 public:
  virtual ~DownloadSink() = default;
  virtual Status Begin(bool from_offset) = 0;
  virtual Status Write(std::span<const char> bytes) = 0;
};

class HttpSession {
 public:
  static Result<HttpSession> Create(const HttpOptions& options);
  HttpSession(HttpSession&&) noexcept;
  HttpSession& operator=(HttpSession&&) noexcept;
  ~HttpSession();

  struct Page {
    std::string body;
    std::string next_url;  // from a `Link: <URL>; rel="next"` header (paginated listings); "" if none
  };
  // GET `url`; a body over `max_bytes` is an error.
  Result<Page> GetText(const std::string& url, uint64_t max_bytes);

  // GET `url` from byte `offset_bytes` (a Range request when it is not 0) into `sink`.
  Status Download(const std::string& url, uint64_t offset_bytes, DownloadSink& sink);

 private:
  struct Impl;
  explicit HttpSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mineru::hub
