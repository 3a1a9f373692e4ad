// fd passing over real Unix sockets: 0, 1 and 250 fds; truncated control data closes what arrived;
// the process's fd count is the same after every test.
#include "shm/fd_passing.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tests/shm/fd_guard.h"

namespace mineru::shm {
namespace {

using FdPassingTest = testing::FdLeakTest;

std::vector<UniqueFd> MakePipes(int n) {
  std::vector<UniqueFd> fds;
  for (int i = 0; i < n; ++i) {
    int p[2];
    EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
    fds.emplace_back(p[0]);
    close(p[1]);
  }
  return fds;
}

std::vector<int> Raw(const std::vector<UniqueFd>& fds) {
  std::vector<int> raw;
  for (const auto& fd : fds) raw.push_back(fd.get());
  return raw;
}

TEST_F(FdPassingTest, BytesWithoutFds) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  const std::vector<uint8_t> msg = {1, 2, 3};
  ASSERT_TRUE(SendWithFds(pair->first.get(), msg).ok());
  std::vector<uint8_t> buf(16);
  auto got = RecvWithFds(pair->second.get(), buf);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->bytes, 3u);
  EXPECT_TRUE(got->fds.empty());
  EXPECT_FALSE(got->eof);
}

TEST_F(FdPassingTest, TwoHundredFiftyFdsInOneMessage) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  auto pipes = MakePipes(250);
  const std::vector<uint8_t> msg = {42};
  ASSERT_TRUE(SendWithFds(pair->first.get(), msg, Raw(pipes)).ok());
  std::vector<uint8_t> buf(16);
  auto got = RecvWithFds(pair->second.get(), buf, 253);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->fds.size(), 250u);
  for (size_t i = 0; i < got->fds.size(); ++i) {
    // Each received fd is the same pipe as the one sent, and close-on-exec.
    struct stat a {
    }, b{};
    ASSERT_EQ(fstat(got->fds[i].get(), &a), 0);
    ASSERT_EQ(fstat(pipes[i].get(), &b), 0);
    EXPECT_EQ(a.st_ino, b.st_ino);
    EXPECT_NE(fcntl(got->fds[i].get(), F_GETFD) & FD_CLOEXEC, 0);
  }
}

TEST_F(FdPassingTest, MoreFdsThanAllowedAreAllClosed) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  auto pipes = MakePipes(250);
  const std::vector<uint8_t> msg = {42};
  ASSERT_TRUE(SendWithFds(pair->first.get(), msg, Raw(pipes)).ok());
  pipes.clear();
  const int before = testing::CountOpenFds();
  std::vector<uint8_t> buf(16);
  auto got = RecvWithFds(pair->second.get(), buf, 1);  // room for one: MSG_CTRUNC
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(testing::CountOpenFds(), before);
}

TEST_F(FdPassingTest, FdsWhenNoneAreAcceptedAreClosed) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  auto pipes = MakePipes(3);
  const std::vector<uint8_t> msg = {1};
  ASSERT_TRUE(SendWithFds(pair->first.get(), msg, Raw(pipes)).ok());
  std::vector<uint8_t> buf(16);
  auto got = RecvWithFds(pair->second.get(), buf, 0);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kDataLoss);
}

TEST_F(FdPassingTest, TooManyToSendIsRefused) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  std::vector<int> fds(254, pair->first.get());
  const std::vector<uint8_t> msg = {1};
  EXPECT_EQ(SendWithFds(pair->first.get(), msg, fds).code(), StatusCode::kInvalidArgument);
}

TEST_F(FdPassingTest, PeerClosedIsEofAndSendIsUnavailable) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  pair->first.reset();
  std::vector<uint8_t> buf(16);
  auto got = RecvWithFds(pair->second.get(), buf);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->eof);
  const std::vector<uint8_t> msg = {1};
  // No SIGPIPE: the call reports the closed peer.
  EXPECT_EQ(SendWithFds(pair->second.get(), msg).code(), StatusCode::kUnavailable);
}

TEST_F(FdPassingTest, NonBlockingReceiveReportsWouldBlock) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  ASSERT_TRUE(SetNonBlocking(pair->second.get(), true).ok());
  std::vector<uint8_t> buf(16);
  auto got = RecvWithFds(pair->second.get(), buf);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->would_block);
}

TEST_F(FdPassingTest, LargeSendOnNonBlockingSocketCompletes) {
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  ASSERT_TRUE(SetNonBlocking(pair->first.get(), true).ok());
  std::vector<uint8_t> msg(8 << 20);
  for (size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<uint8_t>(i * 7);
  std::vector<uint8_t> received;
  std::thread reader([&] {
    std::vector<uint8_t> buf(1 << 16);
    while (received.size() < msg.size()) {
      auto got = RecvWithFds(pair->second.get(), buf);
      if (!got.ok() || got->eof) break;
      received.insert(received.end(), buf.begin(), buf.begin() + static_cast<ptrdiff_t>(got->bytes));
    }
  });
  EXPECT_TRUE(SendWithFds(pair->first.get(), msg, {}, 10000).ok());
  reader.join();
  EXPECT_EQ(received, msg);
}

}  // namespace
}  // namespace mineru::shm
