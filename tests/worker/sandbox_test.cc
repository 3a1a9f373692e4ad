// The sandbox as a worker enters it: a forked child calls EnterSandbox and then tries what a
// compromised parser would; each must fail, while memory, threads and memfds still work.
#include "worker/sandbox.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "shm/document_buffer.h"

namespace mineru::worker {
namespace {

// Runs `body` in a forked child inside the sandbox; returns its exit code (128 + signal when killed).
int InSandbox(int (*body)()) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    SandboxOptions options;
    options.address_space_bytes = 1ull << 30;
    options.cpu_seconds = 30;
    if (!EnterSandbox(options).ok()) ::_exit(100);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(SandboxTest, FilesSocketsProgramsAndProcessesAreDenied) {
  EXPECT_EQ(InSandbox([] { return ::open("/etc/hostname", O_RDONLY) < 0 && errno == EACCES ? 0 : 1; }), 0);
  EXPECT_EQ(InSandbox([] { return ::open("/tmp/sandbox-test", O_CREAT | O_WRONLY, 0600) < 0 ? 0 : 1; }), 0);
  EXPECT_EQ(InSandbox([] { return ::socket(AF_INET, SOCK_STREAM, 0) < 0 && errno == EACCES ? 0 : 1; }), 0);
  EXPECT_EQ(InSandbox([] { return ::socket(AF_UNIX, SOCK_DGRAM, 0) < 0 ? 0 : 1; }), 0);
  EXPECT_EQ(InSandbox([] {
              char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
              return ::execve("/bin/true", argv, nullptr) < 0 && errno == EPERM ? 0 : 1;
            }),
            0);
  EXPECT_EQ(InSandbox([] { return ::fork() < 0 ? 0 : 1; }), 0);
  EXPECT_EQ(InSandbox([] { return ::kill(::getppid(), 0) < 0 ? 0 : 1; }), 0);
  EXPECT_EQ(InSandbox([] {
              void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
              return p == MAP_FAILED ? 0 : 1;
            }),
            0);
}

TEST(SandboxTest, WhatParsingNeedsStillWorks) {
  EXPECT_EQ(InSandbox([] {
              auto buffer = shm::DocumentBuffer::Create(1 << 20);
              if (!buffer.ok()) return 1;
              buffer->data()[0] = 1;
              if (!buffer->Seal().ok()) return 2;
              int value = 0;
              std::thread t([&] { value = 42; });
              t.join();
              auto* big = new char[64 << 20];
              big[0] = 1;
              delete[] big;
              return value == 42 ? 0 : 3;
            }),
            0);
}

TEST(SandboxTest, TheAddressSpaceLimitHolds) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(MINERU_TSAN)
  GTEST_SKIP() << "sanitizer builds leave RLIMIT_AS unset";
#else
  EXPECT_EQ(InSandbox([] {
              void* p =
                  ::mmap(nullptr, 2ull << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
              return p == MAP_FAILED && errno == ENOMEM ? 0 : 1;
            }),
            0);
#endif
}

}  // namespace
}  // namespace mineru::worker
