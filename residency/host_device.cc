// HostDevice: see host_device.h.
#include "residency/host_device.h"

#include <cstdlib>
#include <sstream>

#include "residency/copy_worker.h"

namespace mineru::residency {

namespace {
constexpr uint64_t kHostAlignBytes = 4096;
double Rate(double gbps) { return gbps > 0 ? gbps * 1e9 : 0; }
}  // namespace

HostDevice::HostDevice(HostDeviceOptions options) : options_(options) {
  for (auto& worker : workers_) worker = std::make_unique<CopyWorker>();
}

HostDevice::~HostDevice() {
  for (auto& worker : workers_) worker.reset();  // drain copies before freeing anything
  for (auto& cache : free_cache_) {
    for (auto& [size, ptr] : cache) std::free(ptr);
    cache.clear();
  }
}

std::string HostDevice::Describe() const {
  std::ostringstream out;
  out << "host device (CPU memory as kGpu)";
  if (options_.h2d_gbps > 0) {
    out << ", emulated link h2d " << options_.h2d_gbps << " GB/s";
    if (options_.h2d_pageable_gbps > 0) out << " (pageable " << options_.h2d_pageable_gbps << " GB/s)";
    out << ", d2h " << options_.d2h_gbps << " GB/s";
  }
  return out.str();
}

Result<DeviceBuffer> HostDevice::Allocate(Tier tier, uint64_t size_bytes) {
  if (tier == Tier::kDisk) return InvalidArgument("kDisk memory is the mapped file; it is not allocated");
  if (size_bytes == 0) return InvalidArgument("a zero-byte device buffer");
  const uint64_t rounded = (size_bytes + kHostAlignBytes - 1) / kHostAlignBytes * kHostAlignBytes;
  const int t = TierIndex(tier);
  void* data = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_cache_[t].find(rounded);
    if (it != free_cache_[t].end()) {
      data = it->second;
      free_cache_[t].erase(it);
    }
  }
  if (data == nullptr) {
    data = std::aligned_alloc(kHostAlignBytes, rounded);
    if (data == nullptr)
      return ResourceExhausted("host memory exhausted allocating " + std::to_string(rounded));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.live_bytes[t] += rounded;
    stats_.peak_bytes[t] = std::max(stats_.peak_bytes[t], stats_.live_bytes[t]);
  }
  return DeviceBuffer(this, tier, data, rounded);
}

void HostDevice::Free(Tier tier, void* data, uint64_t size_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  const int t = TierIndex(tier);
  stats_.live_bytes[t] -= size_bytes;
  free_cache_[t].emplace(size_bytes, data);
}

Result<std::unique_ptr<CopyEvent>> HostDevice::CopyAsync(const CopyRequest& request) {
  if (request.size_bytes == 0) return InvalidArgument("an empty copy");
  if (request.dst == nullptr || request.src == nullptr) return InvalidArgument("a copy without memory");
  double rate = 0;
  switch (request.queue) {
    case CopyQueue::kHostToDevice:
      rate = Rate(request.src_pageable && options_.h2d_pageable_gbps > 0 ? options_.h2d_pageable_gbps
                                                                         : options_.h2d_gbps);
      break;
    case CopyQueue::kDeviceToHost:
      rate = Rate(options_.d2h_gbps);
      break;
    case CopyQueue::kHostToHost:
      rate = Rate(options_.h2h_gbps);
      break;
  }
  return workers_[static_cast<int>(request.queue)]->Submit(request.dst, request.src, request.size_bytes,
                                                           rate);
}

DeviceMemoryStats HostDevice::MemoryStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace mineru::residency
