// Device: the memory and copy engine under the residency manager.
// Design note: the manager's policy (budgets, leases, prefetch, eviction, KV pages) is written once
// against this interface. HostDevice (always built) makes "device memory" host memory with the same
// accounting and asynchronous copy queues, optionally paced to an emulated link, so every policy runs
// in CI without a GPU. CudaDevice (built only against a CUDA libtorch, MINERU_HAVE_CUDA) uses device
// memory, pinned host memory, a host->device and a device->host stream, and events.
// Contract: Allocate/Free and CopyAsync may block or call the driver; the manager never calls them while
// holding its lock. Copies on one queue complete in submission order. A CopyEvent is waited on, never
// polled in a sleep loop.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "residency/tier.h"
#include "residency/unit.h"

namespace mineru::residency {

class Device;

// One allocation on kGpu or kPinned. Move-only; frees itself through its device.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Device* device, Tier tier, void* data, uint64_t size_bytes)
      : device_(device), tier_(tier), data_(data), size_bytes_(size_bytes) {}
  ~DeviceBuffer() { Reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  uint64_t size_bytes() const { return size_bytes_; }
  Tier tier() const { return tier_; }
  bool empty() const { return data_ == nullptr; }
  void Reset();

 private:
  Device* device_ = nullptr;
  Tier tier_ = Tier::kGpu;
  void* data_ = nullptr;
  uint64_t size_bytes_ = 0;
};

// Completion of one asynchronous copy.
class CopyEvent {
 public:
  virtual ~CopyEvent() = default;
  // True once the copy has finished (successfully or not). Never blocks.
  virtual bool Done() const = 0;
  // Blocks until the copy has finished; returns its status.
  virtual Status Wait() = 0;
};

enum class CopyQueue : uint8_t {
  kHostToDevice = 0,  // promotions to kGpu, KV swap-in
  kDeviceToHost = 1,  // KV swap-out, demotions that keep a host copy
  kHostToHost = 2,    // disk (mmap) -> pinned reads, in large sequential chunks
};
inline constexpr int kNumCopyQueues = 3;

struct CopyRequest {
  CopyQueue queue = CopyQueue::kHostToDevice;
  void* dst = nullptr;
  const void* src = nullptr;
  uint64_t size_bytes = 0;
  bool src_pageable = false;  // the source is pageable memory (the mmap'd file), not pinned/device
};

struct DeviceMemoryStats {
  uint64_t live_bytes[kNumTiers] = {};  // bytes currently allocated per tier (kDisk: 0)
  uint64_t peak_bytes[kNumTiers] = {};
};

class Device {
 public:
  virtual ~Device() = default;

  virtual std::string Describe() const = 0;
  virtual bool is_cuda() const = 0;

  // Allocates `size_bytes` on kGpu or kPinned (kDisk is kInvalidArgument). The memory is uninitialised.
  virtual Result<DeviceBuffer> Allocate(Tier tier, uint64_t size_bytes) = 0;
  // Starts a copy; the event completes when the bytes have arrived.
  virtual Result<std::unique_ptr<CopyEvent>> CopyAsync(const CopyRequest& request) = 0;

  // The libtorch device that tensors over `tier`'s memory live on (CPU for kPinned/kDisk and for
  // HostDevice's kGpu; CUDA for CudaDevice's kGpu).
  virtual at::Device TorchDevice(Tier tier) const = 0;

  virtual DeviceMemoryStats MemoryStats() const = 0;

 protected:
  friend class DeviceBuffer;
  // Called once per buffer by DeviceBuffer::Reset.
  virtual void Free(Tier tier, void* data, uint64_t size_bytes) = 0;
};

// The libtorch scalar type of a stored dtype.
at::ScalarType ToScalarType(DType dtype);

// Makes a libtorch tensor of `dtype` and `shape` over `data` (not owned: valid while the memory is).
// libtorch's exceptions are turned into kInternal: residency/ never throws.
Result<at::Tensor> TensorOver(const Device& device, Tier tier, void* data, at::ScalarType dtype,
                              const std::vector<int64_t>& shape);

}  // namespace mineru::residency
