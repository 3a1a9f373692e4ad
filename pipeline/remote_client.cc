#include "pipeline/remote_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <thread>

#include "pipeline/remote_server_pool.h"

namespace mineru::pipeline {
namespace {

using std::chrono::milliseconds;

// Error bodies and model lists are short; more is not read.
constexpr size_t kMaxSmallBody = 64 << 10;
constexpr milliseconds kMaxConnectTime{10'000};
constexpr milliseconds kMaxProbeTime{10'000};
constexpr milliseconds kMaxRetryBackoff{5'000};

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

int64_t MillisUntil(MonoTime t, MonoTime now) {
  if (t <= now) return 0;
  return std::chrono::duration_cast<milliseconds>(t - now).count() + 1;
}

// One page, from Submit until its future is set.
struct Task {
  RemotePage page;
  std::promise<Result<std::string>> result;
  std::vector<int64_t> tries_left;  // per server
  int64_t attempts = 0;
  Status last_error = Unavailable("no remote server has answered yet");
  MonoTime not_before{};     // retry back-off
  MonoTime blocked_since{};  // when it began waiting with every usable server out of rotation
  bool blocked = false;
};

// One HTTP transfer: a page's request or a probe.
struct Transfer {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  size_t server = 0;
  std::unique_ptr<Task> task;  // null for a probe
  std::string body;            // the request body (curl reads it in place)
  long http_code = 0;          // NOLINT(google-runtime-int): curl's type
  bool event_stream = false;
  bool classified = false;
  std::string small_body;  // an error body, a model list, or a whole (not streamed) answer
  uint64_t small_limit = kMaxSmallBody;
  std::unique_ptr<ChatStreamParser> parser;
  Status write_error;
  char curl_error[CURL_ERROR_SIZE] = {};

  ~Transfer() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    if (headers != nullptr) curl_slist_free_all(headers);
  }
};

size_t OnData(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (!t->classified) {
    t->classified = true;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->http_code);
    char* type = nullptr;
    curl_easy_getinfo(t->easy, CURLINFO_CONTENT_TYPE, &type);
    t->event_stream = t->task != nullptr && t->http_code == 200 && type != nullptr &&
                      std::string_view(type).find("text/event-stream") != std::string_view::npos;
    if (t->event_stream) {
      t->parser = std::make_unique<ChatStreamParser>(MaxAnswerBytes(t->task->page.sampling.max_tokens));
    } else if (t->task != nullptr && t->http_code == 200) {
      t->small_limit = MaxAnswerBytes(t->task->page.sampling.max_tokens) * 8 + kMaxSmallBody;
    }
  }
  if (t->event_stream) {
    t->write_error = t->parser->Feed(std::string_view(data, n));
    return t->write_error.ok() ? n : 0;
  }
  if (t->small_body.size() + n > t->small_limit) {
    // An error body is only read for its message; an answer this long is refused.
    if (t->http_code != 200) return 0;
    t->write_error =
        ResourceExhausted("the server's answer is longer than " + std::to_string(t->small_limit) + " bytes");
    return 0;
  }
  t->small_body.append(data, n);
  return n;
}

}  // namespace

struct RemoteClient::Impl {
  RemoteClientOptions options;
  RemoteServerPool pool;
  CURLM* multi = nullptr;
  std::thread thread;

  std::mutex mu;                             // guards the inbox: inbox, cancels, stopping, stats
  std::vector<std::unique_ptr<Task>> inbox;  // Guarded by mu
  std::vector<uint64_t> cancels;             // Guarded by mu
  bool stopping = false;                     // Guarded by mu
  RemoteClientStats stats;                   // Guarded by mu

  // The client's thread only.
  std::list<std::unique_ptr<Task>> waiting;
  std::map<CURL*, std::unique_ptr<Transfer>> transfers;

  Impl(RemoteClientOptions o)
      : options(std::move(o)),
        pool(RemoteServerPoolOptions{options.urls, options.concurrency, options.min_backoff,
                                     options.max_backoff},
             MonoNow()) {}

  ~Impl() {
    if (multi != nullptr) curl_multi_cleanup(multi);
  }

  void Run();
  bool TakeInbox();
  void StartProbes(MonoTime now);
  void Dispatch(MonoTime now);
  MonoTime NextWake(MonoTime now) const;
  void OnDone(CURL* easy, CURLcode code, MonoTime now);
  void OnProbeDone(Transfer& t, CURLcode code, MonoTime now);
  void OnPageDone(std::unique_ptr<Transfer> t, CURLcode code, MonoTime now);
  void Retry(std::unique_ptr<Task> task, size_t server, Status error, MonoTime now);
  void Finish(std::unique_ptr<Task> task, Result<std::string> result);
  void CancelJob(uint64_t job_id);
  void FailEverything();
  std::unique_ptr<Transfer> NewTransfer(size_t server, const std::string& path);
  void Remove(CURL* easy);
  void UpdateStats();
};

std::unique_ptr<Transfer> RemoteClient::Impl::NewTransfer(size_t server, const std::string& path) {
  auto t = std::make_unique<Transfer>();
  t->server = server;
  t->easy = curl_easy_init();
  if (t->easy == nullptr) return nullptr;
  const std::string url = pool.server(server).url + path;
  curl_easy_setopt(t->easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(t->easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(t->easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(t->easy, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min(options.timeout, kMaxConnectTime).count()));  // NOLINT
  curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, OnData);
  curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(t->easy, CURLOPT_ERRORBUFFER, t->curl_error);
  curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t.get());
  // No "Expect: 100-continue" round trip before a large body.
  t->headers = curl_slist_append(t->headers, "Expect:");
  if (!options.api_key.empty()) {
    const std::string auth = "Authorization: Bearer " + options.api_key;
    t->headers = curl_slist_append(t->headers, auth.c_str());
  }
  return t;
}

void RemoteClient::Impl::StartProbes(MonoTime now) {
  for (size_t i : pool.ProbesDue(now)) {
    std::unique_ptr<Transfer> t = NewTransfer(i, "/v1/models");
    if (t == nullptr) continue;
    curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::min(options.timeout, kMaxProbeTime).count()));  // NOLINT
    pool.OnProbeStart(i);
    CURL* easy = t->easy;
    transfers.emplace(easy, std::move(t));
    curl_multi_add_handle(multi, easy);
    std::lock_guard lock(mu);
    ++stats.probes;
  }
}

void RemoteClient::Impl::Dispatch(MonoTime now) {
  for (auto it = waiting.begin(); it != waiting.end();) {
    Task& task = **it;
    if (task.page.deadline.Expired()) {
      std::unique_ptr<Task> done = std::move(*it);
      it = waiting.erase(it);
      Finish(std::move(done),
             DeadlineExceeded("the job's time limit passed while its page waited for a server"));
      continue;
    }
    std::vector<bool> allowed(pool.size());
    bool any = false;
    for (size_t i = 0; i < pool.size(); ++i) any |= (allowed[i] = task.tries_left[i] > 0);
    if (!any) {
      std::unique_ptr<Task> done = std::move(*it);
      it = waiting.erase(it);
      Status last = done->last_error;
      Finish(std::move(done),
             Status(last.code(), "every remote server failed this page; the last: " + last.message()));
      continue;
    }
    if (task.not_before > now) {
      ++it;
      continue;
    }
    if (!pool.AnyInRotation(allowed)) {
      if (!task.blocked) {
        task.blocked = true;
        task.blocked_since = now;
      } else if (now - task.blocked_since >= options.timeout) {
        std::unique_ptr<Task> done = std::move(*it);
        it = waiting.erase(it);
        Status last = done->last_error;
        Finish(std::move(done), Status(last.code(), "no remote server answered for " +
                                                        std::to_string(options.timeout.count()) +
                                                        " ms; the last error: " + last.message()));
        continue;
      }
      ++it;
      continue;
    }
    task.blocked = false;
    const int server = pool.Pick(allowed);
    if (server < 0) {
      ++it;  // every usable server is at its concurrency: wait for a slot
      continue;
    }
    std::unique_ptr<Transfer> t = NewTransfer(static_cast<size_t>(server), "/v1/chat/completions");
    if (t == nullptr) {
      ++it;
      continue;
    }
    PageRequest request;
    request.model = pool.server(static_cast<size_t>(server)).model_id;
    request.png = task.page.png;
    request.sampling = task.page.sampling;
    t->body = BuildPageRequestBody(request);
    t->headers = curl_slist_append(t->headers, "Content-Type: application/json");
    t->headers = curl_slist_append(t->headers, "Accept: text/event-stream");
    curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, t->body.data());
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
    int64_t timeout_ms = options.timeout.count();
    if (!task.page.deadline.never())
      timeout_ms = std::min(timeout_ms, MillisUntil(task.page.deadline.at(), now));
    curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::max<int64_t>(timeout_ms, 1)));  // NOLINT
    {
      std::lock_guard lock(mu);
      ++stats.requests;
      if (task.attempts > 0) ++stats.retries;
    }
    ++task.attempts;
    pool.OnRequestStart(static_cast<size_t>(server));
    t->task = std::move(*it);
    it = waiting.erase(it);
    CURL* easy = t->easy;
    transfers.emplace(easy, std::move(t));
    curl_multi_add_handle(multi, easy);
  }
}

MonoTime RemoteClient::Impl::NextWake(MonoTime now) const {
  MonoTime next = pool.NextProbe();
  for (const auto& task : waiting) {
    if (task->not_before > now) next = std::min(next, task->not_before);
    if (task->blocked) next = std::min(next, task->blocked_since + options.timeout);
    if (!task->page.deadline.never()) next = std::min(next, task->page.deadline.at());
  }
  return next;
}

void RemoteClient::Impl::Remove(CURL* easy) { curl_multi_remove_handle(multi, easy); }

void RemoteClient::Impl::OnDone(CURL* easy, CURLcode code, MonoTime now) {
  auto it = transfers.find(easy);
  if (it == transfers.end()) return;
  std::unique_ptr<Transfer> t = std::move(it->second);
  transfers.erase(it);
  Remove(easy);
  if (t->http_code == 0) curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &t->http_code);
  if (t->task == nullptr) {
    OnProbeDone(*t, code, now);
  } else {
    OnPageDone(std::move(t), code, now);
  }
}

void RemoteClient::Impl::OnProbeDone(Transfer& t, CURLcode code, MonoTime now) {
  const std::string& url = pool.server(t.server).url;
  if (code != CURLE_OK) {
    pool.OnProbeFailure(t.server, url + ": " + (t.curl_error[0] ? t.curl_error : curl_easy_strerror(code)),
                        now);
    return;
  }
  if (t.http_code != 200) {
    pool.OnProbeFailure(
        t.server,
        url + "/v1/models: HTTP " + std::to_string(t.http_code) + ": " + ErrorBodyMessage(t.small_body), now);
    return;
  }
  Result<std::string> model = ParseModelList(t.small_body);
  if (!model.ok()) {
    pool.OnProbeFailure(t.server, url + ": " + model.status().message(), now);
    return;
  }
  pool.OnProbeSuccess(t.server, std::move(*model));
}

void RemoteClient::Impl::OnPageDone(std::unique_ptr<Transfer> t, CURLcode code, MonoTime now) {
  pool.OnRequestEnd(t->server);
  const std::string& url = pool.server(t->server).url;
  std::unique_ptr<Task> task = std::move(t->task);
  if (!t->write_error.ok()) {
    Retry(std::move(task), t->server, t->write_error.WithContext(url), now);
    return;
  }
  if (code != CURLE_OK && t->http_code == 200) {
    if (code == CURLE_OPERATION_TIMEDOUT && task->page.deadline.Expired()) {
      Finish(std::move(task),
             DeadlineExceeded("the job's time limit passed while the server answered its page"));
      return;
    }
    Retry(std::move(task), t->server,
          Unavailable(url + ": " + (t->curl_error[0] ? t->curl_error : curl_easy_strerror(code))), now);
    return;
  }
  if (code != CURLE_OK && t->http_code == 0) {
    if (code == CURLE_OPERATION_TIMEDOUT && task->page.deadline.Expired()) {
      Finish(std::move(task),
             DeadlineExceeded("the job's time limit passed while the server answered its page"));
      return;
    }
    Retry(std::move(task), t->server,
          Unavailable(url + ": " + (t->curl_error[0] ? t->curl_error : curl_easy_strerror(code))), now);
    return;
  }
  if (t->http_code != 200) {
    const std::string message =
        url + ": HTTP " + std::to_string(t->http_code) + ": " + ErrorBodyMessage(t->small_body);
    const bool client_error = t->http_code >= 400 && t->http_code < 500;
    if (client_error && t->http_code != 408 && t->http_code != 429) {
      Finish(std::move(task), InvalidArgument("the server refused the page: " + message));
      return;
    }
    if (t->http_code == 429) {
      // Busy, not broken: the page tries again later; the server stays in rotation.
      --task->tries_left[t->server];
      task->last_error = Busy(message);
      task->not_before =
          now + std::min(options.min_backoff * (int64_t{1} << std::min<int64_t>(task->attempts, 5)),
                         kMaxRetryBackoff);
      waiting.push_back(std::move(task));
      return;
    }
    Retry(std::move(task), t->server, Unavailable(message), now);
    return;
  }
  Result<std::string> text = Unavailable("no answer");
  if (t->event_stream) {
    Status finished = t->parser->Finish();
    text = finished.ok() ? Result<std::string>(t->parser->text()) : Result<std::string>(finished);
  } else {
    text = ParseChatCompletion(t->small_body, MaxAnswerBytes(task->page.sampling.max_tokens));
  }
  if (!text.ok()) {
    Retry(std::move(task), t->server, text.status().WithContext(url), now);
    return;
  }
  Finish(std::move(task), std::move(text));
}

void RemoteClient::Impl::Retry(std::unique_ptr<Task> task, size_t server, Status error, MonoTime now) {
  pool.OnServerFailure(server, error.message(), now);
  --task->tries_left[server];
  task->last_error = std::move(error);
  task->not_before =
      now + std::min(options.min_backoff * (int64_t{1} << std::min<int64_t>(task->attempts - 1, 5)),
                     kMaxRetryBackoff);
  waiting.push_back(std::move(task));
}

void RemoteClient::Impl::Finish(std::unique_ptr<Task> task, Result<std::string> result) {
  {
    std::lock_guard lock(mu);
    if (result.ok()) {
      ++stats.pages_done;
    } else {
      ++stats.pages_failed;
    }
  }
  // The task has left `waiting` or its transfer: whoever gets the page next sees the counts without it.
  UpdateStats();
  task->result.set_value(std::move(result));
}

void RemoteClient::Impl::CancelJob(uint64_t job_id) {
  for (auto it = waiting.begin(); it != waiting.end();) {
    if ((*it)->page.job_id != job_id) {
      ++it;
      continue;
    }
    std::unique_ptr<Task> task = std::move(*it);
    it = waiting.erase(it);
    Finish(std::move(task), Cancelled("the job was cancelled"));
  }
  for (auto it = transfers.begin(); it != transfers.end();) {
    Transfer& t = *it->second;
    if (t.task == nullptr || t.task->page.job_id != job_id) {
      ++it;
      continue;
    }
    Remove(t.easy);
    pool.OnRequestEnd(t.server);
    Finish(std::move(t.task), Cancelled("the job was cancelled"));
    it = transfers.erase(it);
  }
}

void RemoteClient::Impl::FailEverything() {
  for (auto& task : waiting) Finish(std::move(task), Cancelled("minerud is stopping"));
  waiting.clear();
  for (auto& [easy, t] : transfers) {
    Remove(easy);
    if (t->task != nullptr) Finish(std::move(t->task), Cancelled("minerud is stopping"));
  }
  transfers.clear();
}

bool RemoteClient::Impl::TakeInbox() {
  std::vector<std::unique_ptr<Task>> fresh;
  std::vector<uint64_t> cancel;
  bool stop = false;
  {
    std::lock_guard lock(mu);
    fresh.swap(inbox);
    cancel.swap(cancels);
    stop = stopping;
  }
  for (auto& task : fresh) {
    task->tries_left.assign(pool.size(), options.tries_per_server);
    waiting.push_back(std::move(task));
  }
  for (uint64_t job : cancel) CancelJob(job);
  return !stop;
}

void RemoteClient::Impl::UpdateStats() {
  std::lock_guard lock(mu);
  stats.servers = static_cast<int64_t>(pool.size());
  stats.servers_in_rotation = static_cast<int64_t>(pool.InRotation());
  int64_t in_flight = 0;
  for (const auto& [easy, t] : transfers) in_flight += t->task != nullptr ? 1 : 0;
  stats.in_flight = in_flight;
  stats.waiting = static_cast<int64_t>(waiting.size());
}

void RemoteClient::Impl::Run() {
  while (TakeInbox()) {
    MonoTime now = MonoNow();
    StartProbes(now);
    Dispatch(now);
    UpdateStats();
    int running = 0;
    curl_multi_perform(multi, &running);
    now = MonoNow();
    int left = 0;
    bool finished_any = false;
    while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      OnDone(m->easy_handle, m->data.result, now);
      finished_any = true;
    }
    // Finished transfers free slots and bring servers back: dispatch again before waiting.
    if (finished_any) continue;
    now = MonoNow();
    const int64_t wait_ms = std::min<int64_t>(MillisUntil(NextWake(now), now), 60'000);
    curl_multi_poll(multi, nullptr, 0, static_cast<int>(wait_ms), nullptr);
  }
  FailEverything();
  UpdateStats();
}

RemoteClient::RemoteClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<RemoteClient>> RemoteClient::Create(RemoteClientOptions options) {
  if (options.urls.empty()) return InvalidArgument("no remote server URL");
  if (options.concurrency < 1) return InvalidArgument("remote concurrency must be at least 1");
  if (options.tries_per_server < 1) return InvalidArgument("tries per server must be at least 1");
  GlobalInit();
  auto impl = std::make_unique<Impl>(std::move(options));
  impl->multi = curl_multi_init();
  if (impl->multi == nullptr) return Internal("curl_multi_init failed");
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->Run(); });
  return std::unique_ptr<RemoteClient>(new RemoteClient(std::move(impl)));
}

RemoteClient::~RemoteClient() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  curl_multi_wakeup(impl_->multi);
  impl_->thread.join();
}

std::future<Result<std::string>> RemoteClient::Submit(RemotePage page) {
  auto task = std::make_unique<Task>();
  task->page = std::move(page);
  std::future<Result<std::string>> f = task->result.get_future();
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopping) {
      task->result.set_value(Cancelled("minerud is stopping"));
      return f;
    }
    impl_->inbox.push_back(std::move(task));
  }
  curl_multi_wakeup(impl_->multi);
  return f;
}

void RemoteClient::Cancel(uint64_t job_id) {
  {
    std::lock_guard lock(impl_->mu);
    impl_->cancels.push_back(job_id);
  }
  curl_multi_wakeup(impl_->multi);
}

RemoteClientStats RemoteClient::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

}  // namespace mineru::pipeline
