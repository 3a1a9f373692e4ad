// minerud as an OpenAI-compatible server (http_listen, daemon/http_listener.h), in the real daemon
// with the golden tiny model: another minerud with the remote backend pointed at it writes the same
// NAME_model_output.txt, byte for byte, as the serving minerud parsing the PDF itself; GET /health and
// /v1/models answer; a page request comes back whole or streamed with the same text; and hostile
// clients (malformed requests, oversized bodies, headers trickled in, idle connections past the limit,
// missing or wrong tokens) get their 4xx or are cut off in bounded time while other clients are served;
// a client that hangs up cancels its page.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/clock.h"
#include "common/unique_fd.h"
#include "document/rgb_image.h"
#include "pipeline/openai_chat.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/integration/tiny_vlm_model.h"
#include "tests/support/shared_data.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;

constexpr int kMaxNewTokens = 40;

// A plain TCP client on 127.0.0.1: what is sent is exactly what the test wrote.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  bool connected() const { return connected_; }
  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Reads until the peer closes, a whole response (by Content-Length) has come, or `timeout_ms`.
  std::string ReadResponse(int timeout_ms = 10'000) {
    std::string got;
    const MonoTime until = MonoNow() + milliseconds(timeout_ms);
    while (MonoNow() < until && !Complete(got)) {
      pollfd p{fd_.get(), POLLIN, 0};
      const int left = static_cast<int>(std::chrono::duration_cast<milliseconds>(until - MonoNow()).count());
      if (::poll(&p, 1, std::max(left, 1)) <= 0) break;
      char buf[65536];
      const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      got.append(buf, static_cast<size_t>(n));
    }
    return got;
  }
  // True when the server closed the connection within `timeout_ms` (data before the close is read).
  bool ClosedWithin(int timeout_ms) {
    ReadResponse(timeout_ms);
    return closed_;
  }

 private:
  static bool Complete(const std::string& r) {
    const size_t end = r.find("\r\n\r\n");
    if (end == std::string::npos) return false;
    const size_t cl = r.find("Content-Length: ");
    if (cl == std::string::npos || cl > end) return false;
    return r.size() >= end + 4 + std::stoull(r.substr(cl + 16));
  }

  UniqueFd fd_;
  bool connected_ = false;
  bool closed_ = false;
};

int StatusOf(const std::string& response) {
  if (!response.starts_with("HTTP/1.1 ")) return 0;
  return std::stoi(response.substr(9, 3));
}

// The body of a whole response; a chunked one (a streamed answer) is joined from its chunks, and
// `chunks`, if given, counts them.
std::string BodyOf(const std::string& response, int* chunks = nullptr) {
  const size_t end = response.find("\r\n\r\n");
  if (end == std::string::npos) return "";
  std::string body = response.substr(end + 4);
  if (response.substr(0, end).find("Transfer-Encoding: chunked") == std::string::npos) return body;
  std::string joined;
  for (size_t at = 0;;) {
    const size_t line = body.find("\r\n", at);
    if (line == std::string::npos) return "(a chunk size line is cut)";
    const size_t size = std::stoul(body.substr(at, line - at), nullptr, 16);
    if (size == 0) return joined;
    if (body.size() < line + 2 + size + 2) return "(a chunk is cut)";
    joined += body.substr(line + 2, size);
    if (chunks) ++*chunks;
    at = line + 2 + size + 2;
  }
}

std::string Get(int port, const std::string& path, const std::string& token = "") {
  RawClient c(port);
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!token.empty()) req += "Authorization: Bearer " + token + "\r\n";
  c.Send(req + "\r\n");
  return c.ReadResponse();
}

std::string Post(int port, const std::string& body, const std::string& token = "", int timeout_ms = 60'000) {
  RawClient c(port);
  std::string req =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
      "Content-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n";
  if (!token.empty()) req += "Authorization: Bearer " + token + "\r\n";
  c.Send(req + "\r\n" + body);
  return c.ReadResponse(timeout_ms);
}

// A page image of its own: a gradient with a dark band.
std::vector<uint8_t> PagePng(int width, int height) {
  document::RgbImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(static_cast<size_t>(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &image.pixels[(static_cast<size_t>(y) * width + x) * 3];
      p[0] = static_cast<uint8_t>(x * 255 / width);
      p[1] = static_cast<uint8_t>(y * 255 / height);
      p[2] = (y > height / 3 && y < height / 2) ? 20 : 230;
    }
  }
  auto png = document::EncodePng(image);
  EXPECT_TRUE(png.ok());
  return *png;
}

// The body MinerU's client (and minerud's remote backend) sends for one page.
std::string PageBody(const std::vector<uint8_t>& png, bool stream, const std::string& model = "model") {
  pipeline::PageRequest r;
  r.model = model;
  r.png = png;
  r.sampling = pipeline::MineruSampling(kMaxNewTokens);
  r.stream = stream;
  return pipeline::BuildPageRequestBody(r);
}

class HttpListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    pdf_ = SamplePdf(shared);
    if (pdf_.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    model_ = fs::path(tmp_.path()) / "model";
    ASSERT_EQ(MakeTinyVlmModel(shared / "golden/vlm-untied-f32", model_), "");
  }

  // Starts the serving minerud (the model, http_listen on a free loopback port) with `more` settings.
  ::testing::AssertionResult StartServer(std::vector<std::string> more = {}) {
    const std::string dir = tmp_.path() + "/b";
    fs::create_directories(dir);
    server_.emplace(dir);
    std::vector<std::string> args = {"--model", model_.string(),
                                     "--set",   "max_new_tokens=" + std::to_string(kMaxNewTokens),
                                     "--set",   "http_listen=127.0.0.1:0"};
    args.insert(args.end(), more.begin(), more.end());
    auto started = server_->Start(args);
    if (!started) return started;
    const std::string log = server_->Log();
    const std::string key = "HTTP listener on 127.0.0.1:";
    const size_t at = log.find(key);
    if (at == std::string::npos) return ::testing::AssertionFailure() << "no listener in the log:\n" << log;
    port_ = std::stoi(log.substr(at + key.size()));
    return ::testing::AssertionSuccess();
  }

  json Stats(DaemonHarness& d) {
    RunResult r = d.Ctl({"--json", "stats"}, {}, 20'000);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false)["counters"];
  }

  std::string WriteToken(const std::string& token) {
    const std::string path = tmp_.path() + "/token";
    std::ofstream(path) << token << "\n";
    return path;
  }

  TempDir tmp_;
  fs::path model_;
  std::string pdf_;
  std::optional<DaemonHarness> server_;
  int port_ = 0;
};

TEST_F(HttpListenerTest, RemoteMinerudWritesTheModelOutputOfTheServingOne) {
  ASSERT_TRUE(StartServer());
  const std::string local = tmp_.path() + "/local";
  RunResult b = server_->Ctl({"submit", pdf_, "-o", local}, {}, 300'000);
  ASSERT_EQ(b.exit_code, 0) << b.err << server_->Log();

  const std::string dir = tmp_.path() + "/a";
  fs::create_directories(dir);
  DaemonHarness remote(dir);
  ASSERT_TRUE(remote.Start(
      {"--set", "backend=remote", "--set", "remote_url=http://127.0.0.1:" + std::to_string(port_), "--set",
       "max_new_tokens=" + std::to_string(kMaxNewTokens), "--set", "remote_timeout=120s"}));
  const std::string through = tmp_.path() + "/remote";
  RunResult a = remote.Ctl({"submit", pdf_, "-o", through}, {}, 300'000);
  ASSERT_EQ(a.exit_code, 0) << a.err << remote.Log() << server_->Log();

  const std::string name = fs::path(pdf_).stem().string() + "_model_output.txt";
  const std::string want = ReadFile(local + "/" + name);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(ReadFile(through + "/" + name), want);
  // The remote pages went through the serving minerud's model and show in its stats.
  const json s = Stats(*server_);
  EXPECT_EQ(s["http_pages_total"].get<double>(), 4) << s.dump();
  EXPECT_EQ(s["pipeline_pages_total"].get<double>(), 8) << s.dump();
  EXPECT_EQ(s["http_client_errors_total"].get<double>(), 0) << s.dump();
}

TEST_F(HttpListenerTest, HealthModelsAndOnePageWholeOrStreamed) {
  ASSERT_TRUE(StartServer());
  const std::string health = Get(port_, "/health");
  EXPECT_EQ(StatusOf(health), 200) << health;
  const json models = json::parse(BodyOf(Get(port_, "/v1/models")), nullptr, false);
  ASSERT_FALSE(models.is_discarded());
  EXPECT_EQ(models["data"][0]["id"], "model") << models.dump();

  const std::vector<uint8_t> png = PagePng(400, 300);
  const std::string whole = Post(port_, PageBody(png, false));
  ASSERT_EQ(StatusOf(whole), 200) << whole;
  auto text = pipeline::ParseChatCompletion(BodyOf(whole), 1 << 20);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_FALSE(text->empty());

  // Streamed as the model writes it: one event per piece of text, joined the same as the whole answer.
  const std::string streamed = Post(port_, PageBody(png, true));
  ASSERT_EQ(StatusOf(streamed), 200) << streamed;
  EXPECT_NE(streamed.find("Content-Type: text/event-stream"), std::string::npos) << streamed;
  int chunks = 0;
  const std::string events = BodyOf(streamed, &chunks);
  pipeline::ChatStreamParser parser(1 << 20);
  ASSERT_TRUE(parser.Feed(events).ok()) << events;
  ASSERT_TRUE(parser.Finish().ok()) << events;
  EXPECT_EQ(parser.text(), *text);
  EXPECT_GT(chunks, 4) << "pieces, the finish event and [DONE] expected: " << events;
  EXPECT_TRUE(events.find("\"finish_reason\":\"length\"") != std::string::npos ||
              events.find("\"finish_reason\":\"stop\"") != std::string::npos)
      << events;
  EXPECT_TRUE(events.ends_with("data: [DONE]\n\n")) << events;

  // max_tokens is honoured: a shorter answer that starts the same.
  json body = json::parse(PageBody(png, false));
  body["max_tokens"] = 3;
  const std::string shorter = Post(port_, body.dump());
  ASSERT_EQ(StatusOf(shorter), 200) << shorter;
  auto short_text = pipeline::ParseChatCompletion(BodyOf(shorter), 1 << 20);
  ASSERT_TRUE(short_text.ok());
  EXPECT_LT(short_text->size(), text->size());
  EXPECT_TRUE(text->starts_with(*short_text)) << *short_text << " / " << *text;
  // ... and says it was cut there; the whole answer ended as the streamed one did.
  const json short_json = json::parse(BodyOf(shorter));
  EXPECT_EQ(short_json["choices"][0]["finish_reason"], "length") << short_json.dump();
  const json whole_json = json::parse(BodyOf(whole));
  const std::string whole_finish = whole_json["choices"][0]["finish_reason"].get<std::string>();
  EXPECT_TRUE(whole_finish == "stop" || whole_finish == "length") << whole_finish;
  EXPECT_EQ(parser.finish_reason(), whole_finish);
  const json s = Stats(*server_);
  EXPECT_EQ(s["http_pages_total"].get<double>(), 3) << s.dump();
}

TEST_F(HttpListenerTest, BadRequestsGetTheir4xxAndOthersAreServed) {
  const std::string token = "s3cret-token";
  ASSERT_TRUE(StartServer({"--set", "http_token_file=" + WriteToken(token), "--set", "http_max_body=1M",
                           "--set", "http_timeout=1500ms", "--set", "http_max_connections=8"}));
  const std::vector<uint8_t> png = PagePng(300, 200);
  const std::string good = PageBody(png, false);

  // Tokens: /health needs none; everything else a right one.
  EXPECT_EQ(StatusOf(Get(port_, "/health")), 200);
  EXPECT_EQ(StatusOf(Get(port_, "/v1/models")), 401);
  EXPECT_EQ(StatusOf(Get(port_, "/v1/models", "wrong")), 401);
  EXPECT_EQ(StatusOf(Post(port_, good)), 401);
  EXPECT_EQ(StatusOf(Post(port_, good, "s3cret-tokeN")), 401);
  EXPECT_EQ(StatusOf(Get(port_, "/v1/models", token)), 200);

  // A good page runs while the bad requests come in; it is answered as if alone.
  auto page = std::async(std::launch::async, [&] { return Post(port_, good, token); });

  // Malformed: not HTTP, a broken header, a body that is not JSON, fields minerud cannot honour.
  {
    RawClient c(port_);
    c.Send("HELLO\r\n\r\n");
    EXPECT_EQ(StatusOf(c.ReadResponse()), 400);
  }
  {
    RawClient c(port_);
    c.Send("GET /health HTTP/1.1\r\nBad Header Line\r\n\r\n");
    EXPECT_EQ(StatusOf(c.ReadResponse()), 400);
  }
  EXPECT_EQ(StatusOf(Post(port_, "{not json", token)), 400);
  json hot = json::parse(good);
  hot["temperature"] = 0.7;
  const std::string refused = Post(port_, hot.dump(), token);
  EXPECT_EQ(StatusOf(refused), 400);
  EXPECT_NE(refused.find("temperature"), std::string::npos) << refused;
  json other = json::parse(good);
  other["model"] = "gpt-4";
  EXPECT_EQ(StatusOf(Post(port_, other.dump(), token)), 404);
  EXPECT_EQ(StatusOf(Get(port_, "/v1/chat/completions", token)), 405);
  EXPECT_EQ(StatusOf(Get(port_, "/nothing", token)), 404);

  // Oversized: a declared body past http_max_body is refused before it is read; so are huge headers.
  {
    RawClient c(port_);
    c.Send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
           "\r\nContent-Length: 104857600\r\n\r\n");
    EXPECT_EQ(StatusOf(c.ReadResponse()), 413);
  }
  {
    RawClient c(port_);
    c.Send("GET /health HTTP/1.1\r\nX-Filler: " + std::string(64 << 10, 'a') + "\r\n\r\n");
    EXPECT_EQ(StatusOf(c.ReadResponse()), 431);
  }

  // Slowloris: headers trickled in never finish a request; each connection is closed at http_timeout
  // however it trickles, while /health answers at once.
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 3; ++i) {
    slow.push_back(std::make_unique<RawClient>(port_));
    ASSERT_TRUE(slow.back()->connected());
    slow.back()->Send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  }
  const MonoTime started = MonoNow();
  for (int tick = 0; tick < 4; ++tick) {
    for (auto& c : slow) c->Send("X-Slow: " + std::to_string(tick) + "\r\n");
    const MonoTime asked = MonoNow();
    EXPECT_EQ(StatusOf(Get(port_, "/health")), 200);
    EXPECT_LT(MonoNow() - asked, milliseconds(1000));
    std::this_thread::sleep_for(milliseconds(300));
  }
  for (auto& c : slow) EXPECT_TRUE(c->ClosedWithin(5'000));
  EXPECT_LT(MonoNow() - started, milliseconds(8'000));

  // Past http_max_connections: one more connection is answered 503 at once; when the idle ones time
  // out, new clients are served again.
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(std::make_unique<RawClient>(port_));
  std::this_thread::sleep_for(milliseconds(200));
  const std::string busy = Get(port_, "/health");
  EXPECT_TRUE(StatusOf(busy) == 503 || busy.empty()) << busy;
  for (auto& c : idle) EXPECT_TRUE(c->ClosedWithin(5'000));
  EXPECT_EQ(StatusOf(Get(port_, "/health")), 200);

  // The good page came back whole, and the daemon is fine.
  const std::string answer = page.get();
  ASSERT_EQ(StatusOf(answer), 200) << answer;
  auto first = pipeline::ParseChatCompletion(BodyOf(answer), 1 << 20);
  auto again = pipeline::ParseChatCompletion(BodyOf(Post(port_, good, token)), 1 << 20);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(*again, *first);
  const json s = Stats(*server_);
  EXPECT_EQ(s["http_pages_total"].get<double>(), 2) << s.dump();
  EXPECT_GE(s["http_client_errors_total"].get<double>(), 12) << s.dump();
  EXPECT_GE(s["http_connections_refused_total"].get<double>(), 1) << s.dump();
}

TEST_F(HttpListenerTest, AClientThatHangsUpCancelsItsPage) {
  // Pages long enough to hang up in the middle of.
  ASSERT_TRUE(StartServer({"--set", "max_new_tokens=3000"}));
  json body = json::parse(PageBody(PagePng(300, 200), false));
  body["max_tokens"] = 3000;
  {
    RawClient c(port_);
    const std::string text = body.dump();
    c.Send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(text.size()) +
           "\r\n\r\n" + text);
    std::this_thread::sleep_for(milliseconds(300));
  }
  json s;
  const MonoTime until = MonoNow() + std::chrono::seconds(30);
  do {
    std::this_thread::sleep_for(milliseconds(100));
    s = Stats(*server_);
  } while (s["http_pages_running"].get<double>() > 0 && MonoNow() < until);
  EXPECT_EQ(s["http_pages_failed_total"].get<double>(), 1) << s.dump();
  EXPECT_EQ(s["http_pages_total"].get<double>(), 0) << s.dump();
  EXPECT_LT(s["pipeline_tokens_generated_total"].get<double>(), 3000) << s.dump();
  EXPECT_EQ(StatusOf(Get(port_, "/health")), 200);
}

// Pages that name an OpenAI `user` are that user's job: a flood of one user's pages takes turns with
// another user's page instead of going first (one page in the model at a time).
TEST_F(HttpListenerTest, PagesOfOneUserTakeTurnsWithAnotherUsersPage) {
  ASSERT_TRUE(StartServer({"--set", "max_new_tokens=1500", "--set", "max_batch=1"}));
  json body = json::parse(PageBody(PagePng(300, 200), false));
  body["max_tokens"] = 1500;
  std::mutex mu;
  std::vector<std::string> finished;  // who, in the order the answers came
  auto send = [&](const std::string& user) {
    json b = body;
    b["user"] = user;
    const std::string answer = Post(port_, b.dump(), "", 300'000);
    std::lock_guard lock(mu);
    finished.push_back(StatusOf(answer) == 200 ? user : user + " (" + answer.substr(0, 200) + ")");
  };
  std::vector<std::future<void>> flood;
  for (int i = 0; i < 5; ++i) flood.push_back(std::async(std::launch::async, send, "flood"));
  // All five in the backend, none answered yet, before the other user's page comes.
  const MonoTime until = MonoNow() + std::chrono::seconds(60);
  while (Stats(*server_)["http_pages_running"].get<double>() < 5 && MonoNow() < until) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  send("other");
  for (auto& f : flood) f.get();
  ASSERT_EQ(finished.size(), 6u);
  // One job per page, or one job for all: the other page would come last, behind every flood page.
  const size_t at =
      static_cast<size_t>(std::find(finished.begin(), finished.end(), "other") - finished.begin());
  EXPECT_LE(at, 3u) << ::testing::PrintToString(finished);
  EXPECT_EQ(std::count(finished.begin(), finished.end(), "flood"), 5) << ::testing::PrintToString(finished);
}

// A streamed page that fails after its first pieces were sent cannot change its status line: it ends
// with an error event and [DONE], and the connection stays usable.
TEST_F(HttpListenerTest, AStreamedPageThatFailsMidwayEndsWithAnErrorEvent) {
  ASSERT_TRUE(StartServer({"--set", "max_new_tokens=100000", "--set", "max_seconds=1"}));
  json body = json::parse(PageBody(PagePng(300, 200), true));
  body["max_tokens"] = 100000;
  const std::string answer = Post(port_, body.dump());
  ASSERT_EQ(StatusOf(answer), 200) << answer;
  int chunks = 0;
  const std::string events = BodyOf(answer, &chunks);
  EXPECT_NE(events.find("\"delta\":{\"content\":"), std::string::npos) << events.substr(0, 2000);
  const size_t error = events.find("data: {\"code\":504");
  ASSERT_NE(error, std::string::npos) << events.substr(events.size() > 2000 ? events.size() - 2000 : 0);
  EXPECT_TRUE(events.ends_with("data: [DONE]\n\n"));
  pipeline::ChatStreamParser parser(1 << 24);
  ASSERT_TRUE(parser.Feed(events.substr(0, error)).ok());
  EXPECT_FALSE(parser.Feed(events.substr(error)).ok());  // a client sees the server's error
  EXPECT_EQ(Stats(*server_)["http_pages_failed_total"].get<double>(), 1);
  EXPECT_EQ(StatusOf(Get(port_, "/health")), 200);
}

// SIGTERM drains HTTP pages as it drains jobs: the page running is answered whole, a request that comes
// meanwhile is refused (503, or no connection at all once the listener is closed), and minerud exits 0.
TEST_F(HttpListenerTest, StoppingAnswersTheRunningPageAndRefusesNewOnes) {
  ASSERT_TRUE(StartServer({"--set", "max_new_tokens=3000"}));
  json body = json::parse(PageBody(PagePng(300, 200), false));
  body["max_tokens"] = 3000;
  RawClient idle(port_);  // an open keep-alive connection with no request yet
  ASSERT_TRUE(idle.connected());
  std::future<std::string> page =
      std::async(std::launch::async, [&, text = body.dump()] { return Post(port_, text, "", 120'000); });
  const MonoTime until = MonoNow() + std::chrono::seconds(30);
  while (Stats(*server_)["http_pages_running"].get<double>() < 1 && MonoNow() < until) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_EQ(::kill(server_->pid(), SIGTERM), 0);
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_EQ(page.wait_for(std::chrono::seconds(0)), std::future_status::timeout)
      << "the page ended before the test stopped it";

  // A request on the connection that was open: 503 and closed.
  const std::string req = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  ASSERT_TRUE(idle.Send(req));
  const std::string refused = idle.ReadResponse();
  EXPECT_EQ(StatusOf(refused), 503) << refused;
  // A new connection: none is accepted any more.
  RawClient late(port_);
  if (late.connected()) {
    late.Send(req);
    EXPECT_NE(StatusOf(late.ReadResponse(2'000)), 200);
  }

  const std::string answer = page.get();
  ASSERT_EQ(StatusOf(answer), 200) << answer;
  const json done = json::parse(BodyOf(answer), nullptr, false);
  ASSERT_FALSE(done.is_discarded()) << answer;
  EXPECT_FALSE(done["choices"][0]["message"]["content"].get<std::string>().empty());
  EXPECT_EQ(server_->Stop(SIGTERM, 60'000), 0) << server_->Log();
}

TEST_F(HttpListenerTest, AnAddressOffLoopbackNeedsATokenFile) {
  const std::string dir = tmp_.path() + "/open";
  RunResult r = RunProgram({MinerudPath(), "--model", model_.string(), "--set", "http_listen=0.0.0.0:0",
                            "--socket", dir + ".sock", "--state-dir", dir});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("http_token_file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mineru::testing
