// Channel over real sockets: socketpair and a listening Unix socket; fds travel with messages;
// timeouts; a peer that closes mid-frame; nothing listening.
#include "shm/channel.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <thread>

#include "shm/document_buffer.h"
#include "shm/fd_passing.h"
#include "tests/shm/fd_guard.h"

namespace mineru::shm {
namespace {

using ChannelTest = testing::FdLeakTest;

TEST_F(ChannelTest, RequestAndReplyOverAPair) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  auto& [client, daemon] = *pair;
  ASSERT_TRUE(client.Send(Hello{1, 1, "test", kCapResultRing, 0}).ok());
  auto got = daemon.Receive(Deadline::InMillis(2000));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(std::holds_alternative<Hello>(got->message));
  EXPECT_EQ(std::get<Hello>(got->message).client_name, "test");
  ASSERT_TRUE(daemon.Send(MakeErrorReply(0, PermissionDenied("not yours"))).ok());
  auto reply = client.Receive(Deadline::InMillis(2000));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(std::get<ErrorReply>(reply->message).code, StatusCode::kPermissionDenied);
}

TEST_F(ChannelTest, SubmitCarriesTheDocumentFd) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  auto& [client, daemon] = *pair;
  auto buffer = DocumentBuffer::Create(4096);
  ASSERT_TRUE(buffer.ok());
  std::memset(buffer->data().data(), 'A', 4096);
  auto fd = buffer->Seal();
  ASSERT_TRUE(fd.ok());
  SubmitRequest submit;
  submit.request_id = 1;
  submit.document_bytes = 4096;
  const int raw = fd->get();
  ASSERT_TRUE(client.Send(submit, std::span<const int>(&raw, 1)).ok());
  auto got = daemon.Receive(Deadline::InMillis(2000));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->fds.size(), 1u);
  EXPECT_EQ(std::get<SubmitRequest>(got->message).document_bytes, 4096u);
}

// The kernel glues fd-less frames in front of a frame with fds into one read: the fds must still go
// to the right frame.
TEST_F(ChannelTest, FdsReachTheirFrameWhenReadsGlueFramesTogether) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  auto& [client, daemon] = *pair;
  auto buffer = DocumentBuffer::Create(100);
  ASSERT_TRUE(buffer.ok());
  auto fd = buffer->Seal();
  ASSERT_TRUE(fd.ok());
  SubmitRequest submit;
  submit.document_bytes = 100;
  const int raw = fd->get();
  for (int round = 0; round < 3; ++round) {
    for (uint64_t i = 0; i < 3; ++i) ASSERT_TRUE(client.Send(Ping{i, "x"}).ok());
    ASSERT_TRUE(client.Send(submit, std::span<const int>(&raw, 1)).ok());
    ASSERT_TRUE(client.Send(Ping{9, std::string(5000, 'y')}).ok());
    ASSERT_TRUE(client.Send(submit, std::span<const int>(&raw, 1)).ok());
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 6; ++i) {
      auto got = daemon.Receive(Deadline::InMillis(2000));
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const bool is_submit = std::holds_alternative<SubmitRequest>(got->message);
      EXPECT_EQ(is_submit, i == 3 || i == 5);
      EXPECT_EQ(got->fds.size(), is_submit ? 1u : 0u);
    }
  }
}

TEST_F(ChannelTest, ManyMessagesInBothDirections) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  auto& [a, b] = *pair;
  std::thread echo([&b] {
    for (int i = 0; i < 2000; ++i) {
      auto m = b.Receive(Deadline::InMillis(5000));
      if (!m.ok()) return;
      const auto& ping = std::get<Ping>(m->message);
      if (!b.Send(Pong{ping.nonce, ping.padding}).ok()) return;
    }
  });
  for (uint64_t i = 0; i < 2000; ++i) {
    ASSERT_TRUE(a.Send(Ping{i, std::string(i % 300, 'z')}).ok());
    auto m = a.Receive(Deadline::InMillis(5000));
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(std::get<Pong>(m->message).nonce, i);
  }
  echo.join();
}

// A hostile client floods a submit with 250 fds: the frame is refused and every fd closed (the
// fixture compares /proc/self/fd before and after).
TEST_F(ChannelTest, FdFloodIsRefusedAndClosed) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  auto& [client, daemon] = *pair;
  std::vector<UniqueFd> memfds;
  std::vector<int> raw;
  for (int i = 0; i < 250; ++i) {
    auto fd = CreateMemfd("flood");
    ASSERT_TRUE(fd.ok());
    raw.push_back(fd->get());
    memfds.push_back(std::move(*fd));
  }
  SubmitRequest submit;
  submit.document_bytes = 4096;
  ASSERT_TRUE(client.Send(submit, raw).ok());
  memfds.clear();
  auto got = daemon.Receive(Deadline::InMillis(2000));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << got.status().ToString();
}

TEST_F(ChannelTest, ReceiveTimesOut) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  auto r = pair->first.Receive(Deadline::InMillis(20));
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(ChannelTest, PeerClosedBetweenAndInsideFrames) {
  {
    auto pair = Channel::Pair();
    ASSERT_TRUE(pair.ok());
    UniqueFd gone = pair->second.ReleaseFd();
    gone.reset();
    EXPECT_EQ(pair->first.Receive(Deadline::InMillis(1000)).status().code(), StatusCode::kUnavailable);
  }
  {
    auto fds = SocketPair();
    ASSERT_TRUE(fds.ok());
    auto reader = Channel::FromFd(std::move(fds->first));
    ASSERT_TRUE(reader.ok());
    const auto frame = EncodeFrame(Ping{1, "abcdef"});
    // A timeout does not break the channel; a truncated frame does, for good.
    EXPECT_EQ(reader->Receive(Deadline::InMillis(10)).status().code(), StatusCode::kDeadlineExceeded);
    ASSERT_TRUE(
        SendWithFds(fds->second.get(), std::span<const uint8_t>(frame.data(), frame.size() - 3)).ok());
    fds->second.reset();
    auto r = reader->Receive(Deadline::InMillis(1000));
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
    EXPECT_EQ(reader->Receive(Deadline::InMillis(10)).status().code(), StatusCode::kDataLoss);
    EXPECT_EQ(reader->Send(Ping{2, ""}).code(), StatusCode::kDataLoss);
  }
}

TEST_F(ChannelTest, ConnectToAListeningSocket) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("minerud-channel-test-" + std::to_string(getpid()) + ".sock"))
                               .string();
  unlink(path.c_str());
  UniqueFd listener(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(listener);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(listener.get(), 4), 0);
  auto client = Channel::Connect(path);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  UniqueFd accepted(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  ASSERT_TRUE(accepted);
  auto server = Channel::FromFd(std::move(accepted));
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(client->Send(StatsRequest{77}).ok());
  auto got = server->Receive(Deadline::InMillis(2000));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::get<StatsRequest>(got->message).request_id, 77u);
  unlink(path.c_str());
  auto refused = Channel::Connect(path, Deadline::InMillis(500));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("minerud"), std::string::npos);
}

TEST_F(ChannelTest, WrongVersionFromThePeerIsReported) {
  auto fds = SocketPair();
  ASSERT_TRUE(fds.ok());
  auto reader = Channel::FromFd(std::move(fds->first));
  ASSERT_TRUE(reader.ok());
  auto frame = EncodeFrame(Ping{1, ""});
  frame[4] = 2;
  ASSERT_TRUE(SendWithFds(fds->second.get(), frame).ok());
  auto r = reader->Receive(Deadline::InMillis(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(r.status().message().find("version 2"), std::string::npos);
}

}  // namespace
}  // namespace mineru::shm
