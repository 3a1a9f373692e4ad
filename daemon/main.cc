// minerud: the document-parsing daemon.
#include <cstdio>
#include <cstring>

#include "common/version.h"

namespace {

constexpr char kUsage[] =
    "Usage: minerud [OPTIONS]\n"
    "       minerud plan --model DIR --vram-budget SIZE\n"
    "\n"
    "Keeps the MinerU 2.0 model resident for every local app and parses documents submitted\n"
    "with mineructl or libmineru-client.\n"
    "\n"
    "Options:\n"
    "  --help        print this help and exit\n"
    "  --version     print the version and exit\n";

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("minerud %s\n", MINERU_VERSION_STRING);
      return 0;
    }
  }
  std::fputs(kUsage, stderr);
  return 64;
}
