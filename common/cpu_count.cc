#include "common/cpu_count.h"

#include <sched.h>

#include <cerrno>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>
#include <thread>

namespace mineru {
namespace {

// CPUs in this thread's affinity mask; a larger mask is tried while the kernel's is larger.
std::optional<int> AffinityCpus() {
  for (int cpus = 1024; cpus <= (1 << 16); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return std::nullopt;
    const size_t bytes = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(bytes, set);
    const int rc = ::sched_getaffinity(0, bytes, set);
    const int err = errno;
    const int count = rc == 0 ? CPU_COUNT_S(bytes, set) : 0;
    CPU_FREE(set);
    if (rc == 0) return count > 0 ? std::optional<int>(count) : std::nullopt;
    if (err != EINVAL) return std::nullopt;
  }
  return std::nullopt;
}

void KeepLeast(std::optional<int>& least, std::optional<int> n) {
  if (n && (!least || *n < *least)) least = n;
}

std::string FirstLine(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// The smallest quota of the cgroup at `path` under `root` and of the cgroups above it (a cgroup's
// limit holds for every cgroup under it; a path that is not there, as seen from inside a container's
// namespace, reads nothing).
template <typename ReadQuota>
std::optional<int> LeastQuota(const std::string& root, std::string path, ReadQuota read_quota) {
  std::optional<int> least;
  for (;;) {
    KeepLeast(least, read_quota(root + path));
    if (path == "/") return least;
    const size_t slash = path.find_last_of('/');
    path = slash == 0 ? "/" : path.substr(0, slash);
  }
}

// The process's CPU quota: cgroup v2 (cpu.max), or the v1 cpu controller (cfs_quota_us, cfs_period_us).
std::optional<int> CgroupQuotaCpus() {
  std::ifstream membership("/proc/self/cgroup");
  std::string line;
  std::optional<int> least;
  while (std::getline(membership, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    const std::string path = line.substr(second + 1);
    if (path.empty() || path.front() != '/') continue;
    if (controllers == ",,") {
      KeepLeast(least, LeastQuota("/sys/fs/cgroup", path, [](const std::string& dir) {
                  return CpuMaxCpus(FirstLine(dir + "/cpu.max"));
                }));
    } else if (controllers.find(",cpu,") != std::string::npos) {
      KeepLeast(least, LeastQuota("/sys/fs/cgroup/cpu", path, [](const std::string& dir) {
                  return CpuMaxCpus(FirstLine(dir + "/cpu.cfs_quota_us") + " " +
                                    FirstLine(dir + "/cpu.cfs_period_us"));
                }));
    }
  }
  return least;
}

}  // namespace

std::optional<int> CpuMaxCpus(std::string_view cpu_max) {
  const size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view s) -> std::optional<long long> {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
    long long v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v <= 0) return std::nullopt;
    return v;
  };
  const std::optional<long long> quota = number(cpu_max.substr(0, space));
  const std::optional<long long> period = number(cpu_max.substr(space + 1));
  if (!quota || !period) return std::nullopt;
  const long long cpus = (*quota + *period - 1) / *period;
  return static_cast<int>(std::clamp<long long>(cpus, 1, 1 << 20));
}

int UsableCpus() {
  const unsigned hardware = std::thread::hardware_concurrency();
  int n = AffinityCpus().value_or(hardware == 0 ? 1 : static_cast<int>(hardware));
  if (std::optional<int> quota = CgroupQuotaCpus()) n = std::min(n, *quota);
  return std::max(1, n);
}

}  // namespace mineru
