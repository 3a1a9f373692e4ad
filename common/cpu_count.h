// How many CPUs this process may keep busy: the CPUs its affinity mask allows (taskset, a systemd
// unit's CPUAffinity=, a container's cpuset), capped by the CPU quota of its cgroup and the cgroups
// above it (a container's --cpus, a unit's CPUQuota=: cgroup v2 cpu.max, or v1 cpu.cfs_quota_us). Every "0:
// one per CPU" default (parsing workers, the model's compute threads) asks here, so a daemon confined to two
// CPUs of a large machine starts two threads, not one per CPU of the machine.
#pragma once

#include <optional>
#include <string_view>

namespace mineru {

// At least 1.
int UsableCpus();

// The CPUs a cgroup v2 cpu.max line allows, rounded up ("150000 100000" -> 2); nullopt for no limit
// ("max 100000") or a line that does not parse.
std::optional<int> CpuMaxCpus(std::string_view cpu_max);

}  // namespace mineru
