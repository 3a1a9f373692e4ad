// HostDevice: the CPU build's Device. kGpu and kPinned memory are host memory; copies run on one
// worker thread per queue (host->device, device->host, host->host), in submission order.
// Design note: an optional emulated link paces each queue to a configured bandwidth (copies from
// pageable memory may get a slower rate, as on a real PCIe link), so the benchmark measures policies
// at realistic ratios of copy to compute. Pacing models a serial link: a copy finishes no earlier than
// max(its start, the end of the previous copy) + size / bandwidth. The bytes are always really copied.
// Freed kGpu/kPinned buffers are kept for reuse by size (first-touch page faults would otherwise
// dominate), but live_bytes counts only buffers in use. Lock order: each queue's mutex and the
// allocator's mutex are leaves.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "residency/device.h"

namespace mineru::residency {

struct HostDeviceOptions {
  // Emulated link in GB/s (1e9 bytes/s) per queue; 0 = unpaced (as fast as memcpy).
  double h2d_gbps = 0;
  double d2h_gbps = 0;
  double h2h_gbps = 0;
  // Rate for host->device copies whose source is pageable; 0 = the same as h2d_gbps.
  double h2d_pageable_gbps = 0;
};

class CopyWorker;

class HostDevice final : public Device {
 public:
  explicit HostDevice(HostDeviceOptions options = {});
  ~HostDevice() override;

  std::string Describe() const override;
  bool is_cuda() const override { return false; }
  Result<DeviceBuffer> Allocate(Tier tier, uint64_t size_bytes) override;
  Result<std::unique_ptr<CopyEvent>> CopyAsync(const CopyRequest& request) override;
  at::Device TorchDevice(Tier) const override { return at::Device(at::kCPU); }
  DeviceMemoryStats MemoryStats() const override;

 protected:
  void Free(Tier tier, void* data, uint64_t size_bytes) override;

 private:
  HostDeviceOptions options_;
  std::unique_ptr<CopyWorker> workers_[kNumCopyQueues];
  mutable std::mutex mu_;
  DeviceMemoryStats stats_;                               // Guarded by mu_
  std::multimap<uint64_t, void*> free_cache_[kNumTiers];  // Guarded by mu_
};

}  // namespace mineru::residency
