// HttpListener: minerud's OpenAI-compatible front (config http_listen, off by default), so clients of
// vLLM and SGLang — MinerU's own HTTP client, another minerud's remote backend — use this minerud's
// resident model: POST /v1/chat/completions (one page image and MinerU's prompt in, the page's model
// text out, as server-sent events or whole; pipeline/openai_chat_server.h says what is accepted),
// GET /v1/models, GET /health. Pages go to Backend::GeneratePageText, so they share the model's steps
// and budget with the pages of documents, and show in its stats.
//
// Built on Boost.Beast (Debian's libboost-dev, header-only): asynchronous on one I/O thread, so one
// deadline covers a whole request however slowly it trickles in (slowloris), the parser enforces the
// header and body limits before anything is buffered past them, and the connection count is ours to
// cap. (cpp-httplib, the other Debian candidate, times single reads only and takes a thread per
// connection.)
//
// Limits: http_max_connections connections at once (one more is answered 503 and closed), one request
// at a time on each, 16 KiB of headers, http_max_body of body, http_timeout to receive a whole request
// (and to send an answer; an idle keep-alive connection is closed after it). A page has max_seconds.
// A request that breaks a limit or the protocol gets its 4xx (or is closed, when the time ran out) and
// affects no other connection.
// Authentication: with http_token_file every request but GET /health must carry
// `Authorization: Bearer TOKEN`; an address that is not loopback is refused without one, since the
// per-user identity of the Unix socket does not exist over TCP. All HTTP clients are one user of the
// page scheduler's fair share (kHttpUser), so that no client takes more than a local user by what it
// claims; within it, the pages of one OpenAI `user` (the request's field) are one job, taking turns
// with other users' (HttpUserJob), and a page that names no user is a job of its own.
//
// Stopping: BeginDrain() lets running pages finish while refusing new work, as minerud drains its jobs;
// the destructor ends everything at once.
//
// Threads: the I/O thread runs every socket; a chat request waits for its page on a thread of its own
// (at most one per connection); a client that hangs up meanwhile cancels its page. Counters() may be called
// from any thread. The destructor cancels the pages still running, closes every connection and joins every
// thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "common/config.h"
#include "common/result.h"
#include "pipeline/backend.h"

namespace mineru::daemon {

// The scheduler's user id for pages that came over HTTP (no local uid is this high).
inline constexpr uint32_t kHttpUser = 0xFFFFFFF0u;

// The scheduler's job for the pages of an OpenAI `user`: in [2^62, 2^63), apart from minerud's job ids
// (counted from 1) and from the tickets of pages that name no job (counted down from 2^64 - 1).
uint64_t HttpUserJob(std::string_view user);

struct HttpListenerOptions {
  HttpListenAddress address;
  std::string token;  // empty: none required (loopback only)
  int64_t max_connections = 64;
  uint64_t max_body_bytes = 64ull << 20;
  int64_t timeout_ms = 10'000;
  int64_t page_time_limit_ms = 3'600'000;
  std::string model_id;                  // what GET /v1/models lists and requests must name
  pipeline::Backend* backend = nullptr;  // not owned; outlives the listener

  // From the config keys http_* (reads the token file; refuses an address off loopback without
  // one) and the backend (refused without a model). A null backend checks the config only.
  static Result<HttpListenerOptions> FromConfig(const Config& config, pipeline::Backend* backend);
};

class HttpListener {
 public:
  // Binds and listens, then serves on its own thread.
  static Result<std::unique_ptr<HttpListener>> Start(HttpListenerOptions options);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // "127.0.0.1:8000" (the port it got when http_listen asked for 0).
  const std::string& address() const;
  // http_* counters for `mineructl stats`.
  std::map<std::string, double> Counters() const;
  // minerud is stopping (SIGTERM): no new connection is accepted, a request on an open one is answered
  // 503 and its connection closed; pages already running go on and are answered, then their connections
  // close. The destructor still cancels what is left (the drain timeout).
  void BeginDrain();
  // No page is running.
  bool Idle() const;

  class Impl;

 private:
  explicit HttpListener(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mineru::daemon
