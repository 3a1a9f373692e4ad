// minerud-test-worker: minerud-worker with faults chosen per document, for the integration tests only
// (a test points minerud at it with --set document_worker=PATH; minerud-worker has none of this). A
// document holding the line "%MINERU-TEST-FAULT:NAME" makes the worker, inside its sandbox, when the
// document is opened:
//   segv   write through a null pointer (SIGSEGV)
//   hang   sleep and never answer
//   alloc  allocate and touch memory without bound (RLIMIT_AS ends it)
//   probe  try to open a file, create one, open sockets, start a process and execve; the document fails
//          with what each attempt gave ("open=EACCES ...") and the pid the worker sees itself as
// Any other document is parsed as minerud-worker parses it.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "worker/worker_service.h"

namespace {

constexpr std::string_view kMarker = "%MINERU-TEST-FAULT:";

std::string Outcome(long rc) {
  if (rc >= 0) return "ALLOWED";
  const char* name = strerrorname_np(errno);
  return name ? name : std::to_string(errno);
}

mineru::Status Probe() {
  std::string out = "sandbox probe:";
  out += " open=" + Outcome(::open("/etc/passwd", O_RDONLY | O_CLOEXEC));
  out += " create=" + Outcome(::open("/tmp/minerud-test-worker-probe", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
  out += " socket_unix=" + Outcome(::socket(AF_UNIX, SOCK_STREAM, 0));
  out += " socket_inet=" + Outcome(::socket(AF_INET, SOCK_STREAM, 0));
  char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
  out += " execve=" + Outcome(::execve("/bin/true", argv, nullptr));
  out += " fork=" + Outcome(::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
  out += " kill_parent=" + Outcome(::kill(::getppid(), 0));
  out += " pid=" + std::to_string(::getpid());
  return mineru::PermissionDenied(out);
}

mineru::Status Fault(std::span<const uint8_t> document) {
  std::string_view bytes(reinterpret_cast<const char*>(document.data()), document.size());
  const size_t at = bytes.find(kMarker);
  if (at == std::string_view::npos) return mineru::Status::Ok();
  std::string_view name = bytes.substr(at + kMarker.size());
  name = name.substr(0, name.find_first_of("\r\n"));
  if (name == "segv") {
    volatile int* null = nullptr;
    *null = 1;
  } else if (name == "hang") {
    for (;;) ::sleep(3600);
  } else if (name == "alloc") {
    std::vector<char*> kept;
    for (;;) {
      char* chunk = new char[64 << 20];
      std::memset(chunk, 1, 64 << 20);
      kept.push_back(chunk);
    }
  } else if (name == "probe") {
    return Probe();
  }
  return mineru::InvalidArgument("unknown test fault '" + std::string(name) + "'");
}

}  // namespace

int main(int argc, char** argv) { return mineru::worker::RunWorker(argc, argv, {&Fault}); }
