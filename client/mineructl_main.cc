// mineructl: submit documents to minerud and follow their jobs. See `mineructl --help`.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "client/ctl_commands.h"
#include "client/ctl_options.h"
#include "common/version.h"

namespace {

// Ctrl-C while waiting: the jobs go on in minerud (a model pull resumes when run again); say so and
// leave with 130.
const char* g_interrupt_message =
    "\nmineructl: interrupted; submitted jobs continue in minerud (mineructl list / wait / cancel)\n";

void OnInterrupt(int) {
  ssize_t ignored = ::write(STDERR_FILENO, g_interrupt_message, std::strlen(g_interrupt_message));
  (void)ignored;
  ::_exit(mineru::ctl::kExitInterrupted);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mineru::ctl;
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  auto options = ParseCtlOptions(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "mineructl: %s\n", options.status().message().c_str());
    return kExitUsage;
  }
  if (options->command == Command::kHelp) {
    std::fputs(CtlUsage().c_str(), stdout);
    return kExitOk;
  }
  if (options->command == Command::kVersion) {
    std::printf("mineructl %s\n", MINERU_VERSION_STRING);
    return kExitOk;
  }
  if (options->command == Command::kModelPull) {
    g_interrupt_message = "\nmineructl: interrupted; run the same command again to resume the download\n";
  }
  return RunCommand(*options);
}
