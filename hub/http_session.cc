#include "hub/http_session.h"

#include <curl/curl.h>

#include <mutex>

namespace mineru::hub {
namespace {

constexpr size_t kMaxErrorBody = 512;

// One request's state, seen by libcurl's callbacks.
struct Transfer {
  CURL* curl = nullptr;
  uint64_t offset_bytes = 0;
  DownloadSink* sink = nullptr;  // a download; else the body goes to `text`
  std::string* text = nullptr;
  uint64_t max_text_bytes = 0;
  bool begun = false;
  long code = 0;
  std::string content_range;  // of the last response (redirects send several)
  std::string link;
  std::string error_body;
  Status status;
};

std::string HeaderValue(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line[name.size()] != ':') return "";
  for (size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return "";
  }
  std::string_view v = line.substr(name.size() + 1);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
  return std::string(v);
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect): forget the last one's
    t->content_range.clear();
    t->link.clear();
  } else if (std::string v = HeaderValue(line, "content-range"); !v.empty()) {
    t->content_range = v;
  } else if (std::string l = HeaderValue(line, "link"); !l.empty()) {
    t->link = l;
  }
  return size * count;
}

// "bytes START-END/TOTAL" must start where we asked.
bool RangeStartsAt(const std::string& content_range, uint64_t offset) {
  const std::string prefix = "bytes " + std::to_string(offset) + "-";
  return content_range.rfind(prefix, 0) == 0;
}

Status BeginBody(Transfer* t) {
  t->begun = true;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->code);
  if (t->code >= 300 || t->sink == nullptr) return Status::Ok();
  if (t->code == 206) {
    if (!RangeStartsAt(t->content_range, t->offset_bytes)) {
      return Unavailable("the server sent range '" + t->content_range + "' for a request from byte " +
                         std::to_string(t->offset_bytes));
    }
    return t->sink->Begin(true);
  }
  return t->sink->Begin(t->offset_bytes == 0);
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (!t->begun) {
    t->status = BeginBody(t);
    if (!t->status.ok()) return 0;
  }
  if (t->code >= 300) {
    t->error_body.append(data, std::min(n, kMaxErrorBody - std::min(kMaxErrorBody, t->error_body.size())));
    return n;
  }
  if (t->sink != nullptr) {
    t->status = t->sink->Write(std::span<const char>(data, n));
    return t->status.ok() ? n : 0;
  }
  if (t->text->size() + n > t->max_text_bytes) {
    t->status =
        ResourceExhausted("the answer is larger than " + std::to_string(t->max_text_bytes) + " bytes");
    return 0;
  }
  t->text->append(data, n);
  return n;
}

// `Link: <URL>; rel="next", ...` -> URL.
std::string NextLink(const std::string& link) {
  const size_t rel = link.find("rel=\"next\"");
  if (rel == std::string::npos) return "";
  const size_t open = link.rfind('<', rel);
  const size_t close = link.find('>', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos || close > rel) return "";
  return link.substr(open + 1, close - open - 1);
}

Status HttpError(long code, const std::string& url, const std::string& body) {
  std::string message = "HTTP " + std::to_string(code) + " from " + url;
  std::string excerpt = body.substr(0, 200);
  for (char& c : excerpt) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  if (!excerpt.empty()) message += ": " + excerpt;
  if (code == 404) return NotFound(message);
  if (code == 401 || code == 403) return PermissionDenied(message);
  if (code == 416) return OutOfRange(message);
  return Unavailable(message);
}

}  // namespace

struct HttpSession::Impl {
  CURL* curl = nullptr;
  HttpOptions options;
  char error[CURL_ERROR_SIZE] = {};
  ~Impl() {
    if (curl != nullptr) curl_easy_cleanup(curl);
  }

  // Sets up the handle for one GET of `url` (connections from earlier requests are kept).
  void Prepare(const std::string& url, Transfer* t) {
    curl_easy_reset(curl);
    error[0] = '\0';
    t->curl = curl;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout_ms));
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options.stall_timeout_s));
    curl_easy_setopt(curl, CURLOPT_USERAGENT, options.user_agent.c_str());
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, t);
  }

  Status Perform(const std::string& url, Transfer* t) {
    const CURLcode rc = curl_easy_perform(curl);
    if (!t->status.ok()) return t->status;
    if (rc != CURLE_OK) {
      return Unavailable("GET " + url + ": " + (error[0] != '\0' ? error : curl_easy_strerror(rc)));
    }
    if (!t->begun) {  // an empty body
      t->status = BeginBody(t);
      if (!t->status.ok()) return t->status;
    }
    if (t->code >= 300) return HttpError(t->code, url, t->error_body);
    return Status::Ok();
  }
};

HttpSession::HttpSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpSession::HttpSession(HttpSession&&) noexcept = default;
HttpSession& HttpSession::operator=(HttpSession&&) noexcept = default;
HttpSession::~HttpSession() = default;

Result<HttpSession> HttpSession::Create(const HttpOptions& options) {
  static std::once_flag once;
  static CURLcode init = CURLE_OK;
  std::call_once(once, [] { init = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (init != CURLE_OK)
    return Status(StatusCode::kInternal, "libcurl: " + std::string(curl_easy_strerror(init)));
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->curl = curl_easy_init();
  if (impl->curl == nullptr) return Status(StatusCode::kInternal, "libcurl: cannot create a handle");
  return HttpSession(std::move(impl));
}

Result<HttpSession::Page> HttpSession::GetText(const std::string& url, uint64_t max_bytes) {
  Page page;
  Transfer t;
  t.text = &page.body;
  t.max_text_bytes = max_bytes;
  impl_->Prepare(url, &t);
  MINERU_RETURN_IF_ERROR(impl_->Perform(url, &t));
  page.next_url = NextLink(t.link);
  return page;
}

Status HttpSession::Download(const std::string& url, uint64_t offset_bytes, DownloadSink& sink) {
  Transfer t;
  t.sink = &sink;
  t.offset_bytes = offset_bytes;
  impl_->Prepare(url, &t);
  const std::string range = std::to_string(offset_bytes) + "-";
  if (offset_bytes > 0) curl_easy_setopt(impl_->curl, CURLOPT_RANGE, range.c_str());
  return impl_->Perform(url, &t);
}

}  // namespace mineru::hub
