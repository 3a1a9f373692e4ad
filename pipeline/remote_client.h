// RemoteClient: sends pages to OpenAI-compatible chat-completions servers (vLLM, SGLang, another
// minerud) and hands back each page's model text. One thread drives libcurl's multi interface for every
// transfer; callers on any thread Submit() pages and get a future.
//
// Spreading and failure (the servers' bookkeeping is remote_server_pool.h):
// - A page goes to the server in rotation with the fewest outstanding requests, at most `concurrency`
//   per server; pages wait in arrival order for a free slot.
// - A server joins the rotation once it answers GET /v1/models (which also names its model). A
//   request that fails through the server's fault (no connection, timeout, HTTP 5xx or 408, a body
//   that is not a chat answer, a stream cut short, an answer past the size limit) takes the server out
//   of rotation until a probe finds it answering again (back-off doubling up to max_backoff); the page
//   is retried, after its own back-off, on a server it has not used up (each server `tries_per_server`
//   times; HTTP 429 retries without taking the server out).
// - A page fails with the last server's error only when every server has failed it, or when it has
//   waited `timeout` with every server it could still use out of rotation. HTTP 4xx other than 408
//   and 429 fails it at once (the request itself was refused). Past the page's deadline it fails with
//   kDeadlineExceeded; Cancel(job) ends a job's pages at once with kCancelled.
// Threads: Submit, Cancel and stats from any thread; everything else on the client's thread. The
// inbox is guarded by mu_, a leaf lock; curl is only touched on the client's thread (and by
// curl_multi_wakeup, which may be called from any).
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "pipeline/openai_chat.h"

namespace mineru::pipeline {

struct RemoteClientOptions {
  std::vector<std::string> urls;               // base URLs; requests go to URL/v1/chat/completions
  std::string api_key;                         // sent as "Authorization: Bearer KEY" when not empty
  int64_t concurrency = 8;                     // requests in flight per server
  std::chrono::milliseconds timeout{300'000};  // one request, and the longest wait for a server
  int64_t tries_per_server = 2;
  std::chrono::milliseconds min_backoff{250};
  std::chrono::milliseconds max_backoff{30'000};
};

struct RemotePage {
  uint64_t job_id = 0;  // for Cancel
  std::vector<uint8_t> png;
  ChatSampling sampling;
  Deadline deadline;
};

struct RemoteClientStats {
  uint64_t requests = 0;      // page requests started
  uint64_t retries = 0;       // of them, retries of a page
  uint64_t pages_done = 0;    // pages answered
  uint64_t pages_failed = 0;  // pages failed (cancelled ones included)
  uint64_t probes = 0;
  int64_t servers = 0;
  int64_t servers_in_rotation = 0;
  int64_t in_flight = 0;
  int64_t waiting = 0;
};

class RemoteClient {
 public:
  static Result<std::unique_ptr<RemoteClient>> Create(RemoteClientOptions options);
  ~RemoteClient();  // fails pages still waiting or in flight with kCancelled and joins the thread
  RemoteClient(const RemoteClient&) = delete;
  RemoteClient& operator=(const RemoteClient&) = delete;

  // The model's text for the page (special tokens kept), or why not.
  std::future<Result<std::string>> Submit(RemotePage page);
  // Ends every page of `job_id` now with kCancelled. Never blocks on the network.
  void Cancel(uint64_t job_id);
  RemoteClientStats stats() const;

 private:
  struct Impl;
  explicit RemoteClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mineru::pipeline
