#include "daemon/http_listener.h"

#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "common/thread_pool.h"
#include "pipeline/openai_chat_server.h"
#include "pipeline/remote_backend.h"

namespace mineru::daemon {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

constexpr uint32_t kHeaderLimitBytes = 16 << 10;
constexpr std::chrono::seconds kPageThreadKeepIdle{60};
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

// Equal strings in time that does not depend on where they differ.
bool SameToken(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % (b.size() + 1)]);
  return diff == 0;
}

int HttpStatusFor(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kCancelled:
    case StatusCode::kUnavailable:
    case StatusCode::kResourceExhausted:
    case StatusCode::kBusy:
      return 503;
    case StatusCode::kUnimplemented:
      return 501;
    default:
      return 500;
  }
}

}  // namespace

Result<HttpListenerOptions> HttpListenerOptions::FromConfig(const Config& config,
                                                            pipeline::Backend* backend) {
  HttpListenerOptions o;
  MINERU_ASSIGN_OR_RETURN(o.address, ParseHttpListen(config.http_listen));
  if (!config.http_token_file.empty()) {
    MINERU_ASSIGN_OR_RETURN(o.token, pipeline::ReadApiKeyFile(config.http_token_file, "http_token_file"));
  } else if (!o.address.loopback) {
    return InvalidArgument("http_listen " + config.http_listen +
                           " is not a loopback address: set http_token_file (clients over the network "
                           "have no local user to check)");
  }
  if (backend != nullptr && backend->PageTokenLimit() <= 0) {
    return FailedPrecondition("http_listen serves this minerud's model, and it runs none (set model_dir)");
  }
  o.max_connections = config.http_max_connections;
  o.max_body_bytes = config.http_max_body_bytes;
  o.timeout_ms = config.http_timeout_ms;
  o.page_time_limit_ms = config.max_seconds_per_document * 1000;
  std::string dir = config.model_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  o.model_id = std::filesystem::path(dir).filename().string();
  if (o.model_id.empty()) o.model_id = "minerud";
  o.backend = backend;
  return o;
}

class Connection;

// Everything the I/O thread, the page threads and the owner share.
class HttpListener::Impl {
 public:
  explicit Impl(HttpListenerOptions options) : o(std::move(options)), acceptor(ioc) {}

  Status Listen();
  void Accept();
  // Runs `work` at once on a page thread, counted until it ends.
  void RunPage(std::function<void()> work, std::shared_ptr<std::atomic<bool>> cancel);
  void Stop();

  const HttpListenerOptions o;
  std::string address;

  // Counters (any thread).
  std::atomic<int64_t> connections{0};
  std::atomic<uint64_t> connections_total{0};
  std::atomic<uint64_t> connections_refused{0};
  std::atomic<uint64_t> requests_total{0};
  std::atomic<uint64_t> client_errors{0};
  std::atomic<uint64_t> pages_total{0};
  std::atomic<uint64_t> pages_failed{0};
  std::atomic<int64_t> pages_running{0};
  std::atomic<uint64_t> next_id{1};
  std::atomic<bool> draining{false};

  // Every open connection, to close at Stop(). Declared before ioc: connections still held by
  // handlers are destroyed with it and take themselves out of here.
  std::mutex mu;
  std::set<Connection*> live;                            // Guarded by mu
  std::set<std::shared_ptr<std::atomic<bool>>> cancels;  // Guarded by mu: running pages' flags
  bool stopping = false;                                 // Guarded by mu
  // A page blocks its thread for the whole generation; threads are kept a while for the next pages.
  ThreadPool page_threads{kPageThreadKeepIdle};

  net::io_context ioc{1};
  tcp::acceptor acceptor;
  std::thread io_thread;
};

// One client connection: read a request (under one deadline), answer it, read the next.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, HttpListener::Impl* impl) : stream_(std::move(socket)), impl_(impl) {
    std::lock_guard lock(impl_->mu);
    impl_->live.insert(this);
  }
  ~Connection() {
    impl_->connections.fetch_sub(1);
    std::lock_guard lock(impl_->mu);
    impl_->live.erase(this);
  }

  void Start() { ReadRequest(); }
  // I/O thread only.
  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

 private:
  std::chrono::milliseconds Timeout() const { return std::chrono::milliseconds(impl_->o.timeout_ms); }

  void ReadRequest() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimitBytes);
    parser_->body_limit(impl_->o.max_body_bytes);
    stream_.expires_after(Timeout());
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset) {
      // Gone, idle past the timeout, or too slow to send its request: no answer can help.
      if (ec == beast::error::timeout && buffer_.size() > 0) impl_->client_errors.fetch_add(1);
      return Close();
    }
    // After a broken request the rest of the stream cannot be trusted: answer and close.
    keep_alive_ = false;
    if (ec == http::error::body_limit) {
      return Error(413, "the request body is larger than http_max_body (" +
                            std::to_string(impl_->o.max_body_bytes) + " bytes)");
    }
    if (ec == http::error::header_limit) return Error(431, "the request's headers are too large");
    if (ec) return Error(400, "malformed HTTP request: " + ec.message());
    impl_->requests_total.fetch_add(1);
    Handle(parser_->release());
  }

  void Handle(Request req) {
    if (impl_->draining.load()) {
      keep_alive_ = false;
      return Error(503, "minerud is stopping", /*client=*/false);
    }
    keep_alive_ = req.keep_alive();
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/health") {
      if (req.method() != http::verb::get) return Error(405, "use GET /health");
      return Send(200, "", "text/plain");
    }
    if (!impl_->o.token.empty()) {
      const auto auth = req[http::field::authorization];
      const std::string_view value(auth.data(), auth.size());
      constexpr std::string_view kBearer = "Bearer ";
      if (!value.starts_with(kBearer) || !SameToken(value.substr(kBearer.size()), impl_->o.token)) {
        return Error(401, "a valid bearer token is required (Authorization: Bearer ...)");
      }
    }
    if (path == "/v1/models") {
      if (req.method() != http::verb::get) return Error(405, "use GET /v1/models");
      const nlohmann::json models = {
          {"object", "list"},
          {"data", nlohmann::json::array({{{"id", impl_->o.model_id},
                                           {"object", "model"},
                                           {"created", WallNowMillis() / 1000},
                                           {"owned_by", "minerud"},
                                           {"max_model_len", impl_->o.backend->PageTokenLimit()}}})}};
      return Send(200, models.dump(), "application/json");
    }
    if (path == "/v1/chat/completions") {
      if (req.method() != http::verb::post) return Error(405, "use POST /v1/chat/completions");
      return Chat(req.body());
    }
    return Error(404, "no such endpoint: " + std::string(path.substr(0, 200)));
  }

  void Chat(const std::string& body) {
    Result<pipeline::IncomingPageRequest> parsed =
        pipeline::ParsePageRequest(body, impl_->o.backend->PageTokenLimit());
    if (!parsed.ok()) return Error(400, parsed.status().message());
    if (parsed->model != impl_->o.model_id) {
      return Error(404, "The model `" + parsed->model.substr(0, 200) + "` does not exist.");
    }
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    WatchForHangUp(cancel);
    auto page = std::make_shared<pipeline::IncomingPageRequest>(std::move(*parsed));
    impl_->RunPage(
        [self = shared_from_this(), page, cancel] {
          pipeline::PageImageRequest r;
          r.png = page->png;
          r.max_new_tokens = page->max_tokens;
          r.no_repeat_ngram_size = page->no_repeat_ngram_size;
          r.user = kHttpUser;
          if (!page->user.empty()) r.job = HttpUserJob(page->user);
          r.deadline = Deadline::InMillis(self->impl_->o.page_time_limit_ms);
          if (page->stream) {
            r.on_text = [self, page](std::string_view piece) {
              net::post(self->impl_->ioc,
                        [self, page, piece = std::string(piece)] { self->StreamPiece(*page, piece); });
            };
          }
          Result<pipeline::PageText> text = self->impl_->o.backend->GeneratePageText(r, *cancel);
          net::post(self->impl_->ioc,
                    [self, page, text = std::move(text)]() mutable { self->Answer(*page, std::move(text)); });
        },
        cancel);
  }

  // While its page runs, a client that hangs up cancels it (its KV and its place in the batch go at
  // once). Bytes of a next request end the watch without cancelling.
  void WatchForHangUp(std::shared_ptr<std::atomic<bool>> cancel) {
    watching_ = true;
    stream_.socket().async_wait(
        tcp::socket::wait_read, [self = shared_from_this(), cancel](beast::error_code ec) {
          self->watching_ = false;
          if (ec) return;
          char byte;
          const ssize_t n = ::recv(self->stream_.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
          if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) cancel->store(true);
        });
  }

  void Answer(const pipeline::IncomingPageRequest& page, Result<pipeline::PageText> text) {
    if (watching_) {
      beast::error_code ignored;
      stream_.socket().cancel(ignored);  // the hang-up watch ends (operation_aborted)
    }
    if (impl_->draining.load()) keep_alive_ = false;  // answered, then closed
    if (streaming_) return EndStream(page, text);
    if (!text.ok()) {
      impl_->pages_failed.fetch_add(1);
      return Error(HttpStatusFor(text.status()), text.status().message(), /*client=*/false);
    }
    impl_->pages_total.fetch_add(1);
    const std::string id = NewId();
    const int64_t created = WallNowMillis() / 1000;
    // A page that wrote no text before it finished: the whole answer at once (a streamed one as one
    // event, then the finish event). "length": the page ran into max_tokens (its text is cut short),
    // as vLLM and SGLang say it.
    const std::string_view finish = FinishReason(*text);
    std::string out;
    try {
      out = page.stream
                ? pipeline::FormatStreamChunk(id, page.model, created, text->text) +
                      pipeline::FormatStreamChunk(id, page.model, created, "", finish) + "data: [DONE]\n\n"
                : pipeline::FormatCompletion(id, page.model, created, text->text, finish);
    } catch (const std::exception& e) {
      return Error(500, std::string("cannot write the answer: ") + e.what(), /*client=*/false);
    }
    Send(200, std::move(out), page.stream ? "text/event-stream" : "application/json");
  }

  std::string NewId() { return "chatcmpl-minerud-" + std::to_string(impl_->next_id.fetch_add(1)); }
  static std::string_view FinishReason(const pipeline::PageText& text) {
    return text.at_token_limit ? "length" : "stop";
  }

  // A streamed answer: the header (chunked) before the first piece, then one event per piece as the
  // model writes it, then the finish event (or an error event: the status line is long gone) and
  // [DONE], as vLLM streams.
  void StreamPiece(const pipeline::IncomingPageRequest& page, const std::string& piece) {
    if (!streaming_) {
      streaming_ = true;
      stream_id_ = NewId();
      stream_created_ = WallNowMillis() / 1000;
      http::response<http::empty_body> head(http::status::ok, 11);
      head.set(http::field::server, "minerud");
      head.set(http::field::content_type, "text/event-stream");
      head.set(http::field::cache_control, "no-cache");
      head.keep_alive(keep_alive_);
      head.chunked(true);
      std::ostringstream out;
      out << head.base();
      Write(out.str());
    }
    WriteChunk(pipeline::FormatStreamChunk(stream_id_, page.model, stream_created_, piece));
  }

  void EndStream(const pipeline::IncomingPageRequest& page, const Result<pipeline::PageText>& text) {
    if (text.ok()) {
      impl_->pages_total.fetch_add(1);
      WriteChunk(
          pipeline::FormatStreamChunk(stream_id_, page.model, stream_created_, "", FinishReason(*text)));
    } else {
      impl_->pages_failed.fetch_add(1);
      WriteChunk("data: " + pipeline::FormatError(HttpStatusFor(text.status()), text.status().message()) +
                 "\n\n");
    }
    WriteChunk("data: [DONE]\n\n");
    Write("0\r\n\r\n");
    streaming_ = false;
    end_after_writes_ = true;
  }

  void WriteChunk(const std::string& data) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    Write(size + data + "\r\n");
  }

  // Queues bytes of a streamed answer; one write at a time, in order.
  void Write(std::string bytes) {
    out_.push_back(std::move(bytes));
    if (out_.size() == 1) WriteFront();
  }
  void WriteFront() {
    stream_.expires_after(Timeout());
    net::async_write(stream_, net::buffer(out_.front()),
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec) return self->Close();
                       self->out_.pop_front();
                       if (!self->out_.empty()) return self->WriteFront();
                       if (!self->end_after_writes_) return;
                       self->end_after_writes_ = false;
                       if (!self->keep_alive_) return self->Linger();
                       self->ReadRequest();
                     });
  }

  void Error(int status, const std::string& message, bool client = true) {
    if (client) impl_->client_errors.fetch_add(1);
    Send(status, pipeline::FormatError(status, message), "application/json");
  }

  void Send(int status, std::string body, const char* content_type) {
    auto res = std::make_shared<Response>(static_cast<http::status>(status), 11);
    res->set(http::field::server, "minerud");
    res->set(http::field::content_type, content_type);
    if (std::strcmp(content_type, "text/event-stream") == 0) res->set(http::field::cache_control, "no-cache");
    res->keep_alive(keep_alive_);
    res->body() = std::move(body);
    res->prepare_payload();
    stream_.expires_after(Timeout());
    http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, size_t) {
      if (ec) return self->Close();
      if (!res->keep_alive()) return self->Linger();
      self->ReadRequest();
    });
  }

  // Ends the connection after an answer without letting it be lost: a close with unread request bytes
  // (a body past the limit, say) would reset the connection and discard the answer at the client. So
  // the sending side is shut, and what the client still sends is read and dropped, for a second at
  // most, until it closes too.
  void Linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(1));
    DrainSome();
  }
  void DrainSome() {
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(64 << 10),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->Close();
                              self->DrainSome();
                            });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = true;
  bool watching_ = false;  // a hang-up watch is pending
  // A streamed answer under way (its header is written) and its bytes still to write.
  bool streaming_ = false;
  bool end_after_writes_ = false;  // the answer is whole: read the next request once it is written
  std::string stream_id_;
  int64_t stream_created_ = 0;
  std::deque<std::string> out_;  // front: being written (a deque keeps it in place as more come)
  HttpListener::Impl* impl_;
};

Status HttpListener::Impl::Listen() {
  beast::error_code ec;
  const net::ip::address ip = net::ip::make_address(o.address.host, ec);
  if (ec) return InvalidArgument("http_listen: '" + o.address.host + "' is not an IP address");
  const tcp::endpoint endpoint(ip, o.address.port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(StatusCode::kUnavailable, "cannot listen on http_listen " + o.address.host + ":" +
                                                std::to_string(o.address.port) + ": " + ec.message());
  }
  const tcp::endpoint bound = acceptor.local_endpoint(ec);
  const std::string host = bound.address().to_string();
  address = (bound.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(bound.port());
  return Status::Ok();
}

void HttpListener::Impl::Accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) return;
    if (!ec) {
      if (connections.load() >= o.max_connections) {
        // Over the limit: a short 503, without reading the request, and close.
        connections_refused.fetch_add(1);
        static constexpr char kBusy[] =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        ::send(socket.native_handle(), kBusy, sizeof(kBusy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        beast::error_code ignored;
        socket.shutdown(tcp::socket::shutdown_both, ignored);
        socket.close(ignored);
      } else {
        connections.fetch_add(1);
        connections_total.fetch_add(1);
        std::make_shared<Connection>(std::move(socket), this)->Start();
      }
    }
    Accept();
  });
}

void HttpListener::Impl::RunPage(std::function<void()> work, std::shared_ptr<std::atomic<bool>> cancel) {
  {
    std::lock_guard lock(mu);
    if (stopping) cancel->store(true);
    cancels.insert(cancel);
  }
  pages_running.fetch_add(1);
  page_threads.Run([this, work = std::move(work), cancel]() mutable {
    work();
    work = nullptr;  // its captures (the connection) go before the listener may
    pages_running.fetch_sub(1);
    std::lock_guard lock(mu);
    cancels.erase(cancel);
  });
}

void HttpListener::Impl::Stop() {
  {
    std::lock_guard lock(mu);
    stopping = true;
    for (const auto& c : cancels) c->store(true);
  }
  net::post(ioc, [this] {
    beast::error_code ignored;
    acceptor.close(ignored);
    std::vector<Connection*> open;
    {
      std::lock_guard lock(mu);
      open.assign(live.begin(), live.end());
    }
    for (Connection* c : open) c->Close();
  });
  // Pages end soon once cancelled; their answers may still be posted.
  page_threads.Close();
  ioc.stop();
  if (io_thread.joinable()) io_thread.join();
}

uint64_t HttpUserJob(std::string_view user) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a: the same user is the same job in every request
  for (unsigned char c : user) h = (h ^ c) * 1099511628211ull;
  return (uint64_t{1} << 62) | (h & ((uint64_t{1} << 62) - 1));
}

HttpListener::HttpListener(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<HttpListener>> HttpListener::Start(HttpListenerOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  MINERU_RETURN_IF_ERROR(impl->Listen());
  impl->Accept();
  Impl* raw = impl.get();
  impl->io_thread = std::thread([raw] {
    for (;;) {
      try {
        raw->ioc.run();
        return;
      } catch (const std::exception& e) {
        MINERU_LOG(kError) << "HTTP listener: " << e.what();
      }
    }
  });
  return std::unique_ptr<HttpListener>(new HttpListener(std::move(impl)));
}

HttpListener::~HttpListener() {
  if (impl_) impl_->Stop();
}

void HttpListener::BeginDrain() {
  Impl* impl = impl_.get();
  impl->draining.store(true);
  net::post(impl->ioc, [impl] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
}

bool HttpListener::Idle() const { return impl_->pages_running.load() == 0; }

const std::string& HttpListener::address() const { return impl_->address; }

std::map<std::string, double> HttpListener::Counters() const {
  const Impl& i = *impl_;
  auto d = [](auto v) { return static_cast<double>(v); };
  return {{"http_connections", d(i.connections.load())},
          {"http_connections_total", d(i.connections_total.load())},
          {"http_connections_refused_total", d(i.connections_refused.load())},
          {"http_requests_total", d(i.requests_total.load())},
          {"http_client_errors_total", d(i.client_errors.load())},
          {"http_pages_running", d(i.pages_running.load())},
          {"http_pages_total", d(i.pages_total.load())},
          {"http_pages_failed_total", d(i.pages_failed.load())}};
}

}  // namespace mineru::daemon
