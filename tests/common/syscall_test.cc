#include "common/syscall.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace mineru {
namespace {

TEST(SyscallTest, RetriesOnlyOnEintr) {
  int calls = 0;
  int rc = RetryEintr([&] {
    ++calls;
    if (calls < 3) {
      errno = EINTR;
      return -1;
    }
    return 42;
  });
  EXPECT_EQ(rc, 42);
  EXPECT_EQ(calls, 3);

  calls = 0;
  rc = RetryEintr([&] {
    ++calls;
    errno = EAGAIN;
    return -1;
  });
  EXPECT_EQ(rc, -1);
  EXPECT_EQ(errno, EAGAIN);
  EXPECT_EQ(calls, 1);
}

void OnAlarm(int) {}

TEST(SyscallTest, ReadSurvivesARealSignal) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  struct sigaction sa {};
  sa.sa_handler = OnAlarm;  // no SA_RESTART: read() returns EINTR
  struct sigaction old {};
  ASSERT_EQ(::sigaction(SIGALRM, &sa, &old), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::usleep(200'000);
    char c = 'x';
    (void)!::write(fds[1], &c, 1);
    ::_exit(0);
  }
  itimerval timer{};
  timer.it_value.tv_usec = 50'000;
  ::setitimer(ITIMER_REAL, &timer, nullptr);
  char buf = 0;
  ssize_t n = RetryEintr([&] { return ::read(fds[0], &buf, 1); });
  EXPECT_EQ(n, 1);
  EXPECT_EQ(buf, 'x');
  ::sigaction(SIGALRM, &old, nullptr);
  ::close(fds[0]);
  ::close(fds[1]);
  int status = 0;
  ::waitpid(child, &status, 0);
}

}  // namespace
}  // namespace mineru
