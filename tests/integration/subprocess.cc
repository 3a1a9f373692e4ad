#include "tests/integration/subprocess.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace mineru::testing {
namespace {

[[noreturn]] void ExecChild(const std::vector<std::string>& argv, const SpawnOptions& o, int out_fd,
                            int err_fd) {
  if (o.pass_fd_as_3 >= 0) {
    if (o.pass_fd_as_3 != 3) {
      ::dup2(o.pass_fd_as_3, 3);
    } else {
      ::fcntl(3, F_SETFD, 0);
    }
  }
  if (!o.stdin_file.empty()) {
    int in = ::open(o.stdin_file.c_str(), O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
  } else {
    int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
  }
  ::dup2(out_fd, 1);
  ::dup2(err_fd, 2);
  for (const auto& [k, v] : o.env) ::setenv(k.c_str(), v.c_str(), 1);
  if (o.set_listen_pid) {
    ::setenv("LISTEN_PID", std::to_string(::getpid()).c_str(), 1);
    ::setenv("LISTEN_FDS", "1", 1);
  }
  if (o.uid) {
    gid_t gid = o.gid.value_or(*o.uid);
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(*o.uid) != 0) _exit(126);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  _exit(127);
}

int OpenOut(const std::string& path) {
  return ::open(path.empty() ? "/dev/null" : path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

}  // namespace

pid_t Spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const std::string& stdout_path,
            const std::string& stderr_path) {
  int out_fd = OpenOut(stdout_path);
  int err_fd = OpenOut(stderr_path);
  pid_t pid = ::fork();
  if (pid == 0) ExecChild(argv, options, out_fd, err_fd);
  ::close(out_fd);
  ::close(err_fd);
  return pid;
}

int WaitExit(pid_t pid, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      return -1;
    }
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

RunResult RunProgram(const std::vector<std::string>& argv, const SpawnOptions& options, int timeout_ms) {
  char out_tmpl[] = "/tmp/minerud-run-out-XXXXXX";
  char err_tmpl[] = "/tmp/minerud-run-err-XXXXXX";
  int o = ::mkstemp(out_tmpl);
  int e = ::mkstemp(err_tmpl);
  ::close(o);
  ::close(e);
  ::chmod(out_tmpl, 0666);
  ::chmod(err_tmpl, 0666);
  pid_t pid = Spawn(argv, options, out_tmpl, err_tmpl);
  RunResult r;
  r.exit_code = WaitExit(pid, timeout_ms);
  if (r.exit_code == -1) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  r.out = ReadFile(out_tmpl);
  r.err = ReadFile(err_tmpl);
  ::unlink(out_tmpl);
  ::unlink(err_tmpl);
  return r;
}

int CountFds(pid_t pid) {
  std::error_code ec;
  int n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace mineru::testing
