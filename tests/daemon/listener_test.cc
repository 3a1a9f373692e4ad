#include "daemon/listener.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "tests/daemon/temp_dir.h"

namespace mineru::daemon {
namespace {

bool CanConnect(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  return ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
}

TEST(ListenerTest, BindsWithModeAndCreatesTheFolder) {
  mineru::testing::TempDir tmp;
  std::string path = tmp.path() + "/run/minerud.sock";
  auto s = ListenOnPath(path, 0660);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_TRUE(CanConnect(path));
  // A second daemon on the same path is refused while the first listens.
  EXPECT_EQ(ListenOnPath(path, 0660).status().code(), StatusCode::kAlreadyExists);
  RemoveSocketFile(*s);
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
}

TEST(ListenerTest, ReplacesAStaleSocketButNotAFile) {
  mineru::testing::TempDir tmp;
  std::string path = tmp.path() + "/s.sock";
  {
    auto first = ListenOnPath(path, 0600);
    ASSERT_TRUE(first.ok());
  }  // closed without removing the file: stale
  auto second = ListenOnPath(path, 0600);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(CanConnect(path));
  std::string file = tmp.path() + "/regular";
  std::ofstream(file) << "x";
  EXPECT_EQ(ListenOnPath(file, 0600).status().code(), StatusCode::kAlreadyExists);
  EXPECT_FALSE(ListenOnPath(tmp.path() + "/" + std::string(120, 'a'), 0600).ok()) << "too long for sun_path";
}

TEST(ListenerTest, NoActivatedSocketWithoutListenFds) {
  ::unsetenv("LISTEN_FDS");
  ::unsetenv("LISTEN_PID");
  auto s = TakeActivatedSocket();
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->fd.valid());
}

TEST(ListenerTest, SocketModeParsing) {
  EXPECT_EQ(*ParseSocketMode("0660"), 0660u);
  EXPECT_EQ(*ParseSocketMode("600"), 0600u);
  EXPECT_FALSE(ParseSocketMode("0888").ok());
  EXPECT_FALSE(ParseSocketMode("").ok());
  EXPECT_FALSE(ParseSocketMode("07777").ok());
  EXPECT_FALSE(ParseSocketMode("rw").ok());
}

}  // namespace
}  // namespace mineru::daemon
