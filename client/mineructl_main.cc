// mineructl: submit documents to minerud and follow their jobs.
#include <cstdio>
#include <cstring>

#include "common/version.h"

namespace {

constexpr char kUsage[] =
    "Usage: mineructl COMMAND [OPTIONS]\n"
    "\n"
    "Commands:\n"
    "  submit FILE...|-   parse documents; writes NAME.md and MinerU's JSON under -o DIR\n"
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
      std::printf("mineructl %s\n", MINERU_VERSION_STRING);
      return 0;
    }
  }
  std::fputs(kUsage, stderr);
  return 64;
}
