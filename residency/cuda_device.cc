// CudaDevice: see cuda_device.h. Compiled only when MINERU_HAVE_CUDA.
#include "residency/cuda_device.h"

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "residency/copy_worker.h"

namespace mineru::residency {

namespace {

// A device that is there but not ready (its driver still starting, held by another process in
// exclusive mode) is kUnavailable, which a caller may retry; anything else is kInternal.
Status CudaStatus(cudaError_t err, const std::string& what) {
  const bool not_ready = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
                         err == cudaErrorDevicesUnavailable || err == cudaErrorSystemNotReady ||
                         err == cudaErrorInitializationError;
  return Status(not_ready ? StatusCode::kUnavailable : StatusCode::kInternal,
                what + ": " + cudaGetErrorString(err));
}

// One copy's completion: a CUDA event recorded on the copy's stream after the copy.
class CudaCopyEvent final : public CopyEvent {
 public:
  explicit CudaCopyEvent(cudaEvent_t event) : event_(event) {}
  ~CudaCopyEvent() override { cudaEventDestroy(event_); }
  bool Done() const override { return cudaEventQuery(event_) != cudaErrorNotReady; }
  Status Wait() override {
    cudaError_t err = cudaEventSynchronize(event_);
    return err == cudaSuccess ? Status::Ok() : CudaStatus(err, "waiting for a copy");
  }

 private:
  cudaEvent_t event_;
};

class CudaDevice final : public Device {
 public:
  CudaDevice(int ordinal, cudaStream_t h2d, cudaStream_t d2h) : ordinal_(ordinal), h2d_(h2d), d2h_(d2h) {}
  ~CudaDevice() override {
    h2h_.reset();
    cudaSetDevice(ordinal_);
    cudaStreamSynchronize(h2d_);
    cudaStreamSynchronize(d2h_);
    cudaStreamDestroy(h2d_);
    cudaStreamDestroy(d2h_);
  }

  std::string Describe() const override {
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, ordinal_);
    return "cuda:" + std::to_string(ordinal_) + " (" + prop.name + ")";
  }
  bool is_cuda() const override { return true; }

  Result<DeviceBuffer> Allocate(Tier tier, uint64_t size_bytes) override {
    if (tier == Tier::kDisk) return InvalidArgument("kDisk memory is the mapped file; it is not allocated");
    if (size_bytes == 0) return InvalidArgument("a zero-byte device buffer");
    cudaSetDevice(ordinal_);
    void* data = nullptr;
    cudaError_t err = tier == Tier::kGpu ? cudaMalloc(&data, size_bytes)
                                         : cudaHostAlloc(&data, size_bytes, cudaHostAllocPortable);
    if (err != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error state of an allocation failure
      return Status(StatusCode::kResourceExhausted, std::string("allocating ") + std::to_string(size_bytes) +
                                                        " bytes of " + std::string(TierName(tier)) +
                                                        " memory: " + cudaGetErrorString(err));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      const int t = TierIndex(tier);
      stats_.live_bytes[t] += size_bytes;
      stats_.peak_bytes[t] = std::max(stats_.peak_bytes[t], stats_.live_bytes[t]);
    }
    return DeviceBuffer(this, tier, data, size_bytes);
  }

  Result<std::unique_ptr<CopyEvent>> CopyAsync(const CopyRequest& r) override {
    if (r.size_bytes == 0 || r.dst == nullptr || r.src == nullptr) return InvalidArgument("an empty copy");
    if (r.queue == CopyQueue::kHostToHost) return h2h_->Submit(r.dst, r.src, r.size_bytes, 0);
    cudaSetDevice(ordinal_);
    cudaStream_t stream = r.queue == CopyQueue::kHostToDevice ? h2d_ : d2h_;
    const cudaMemcpyKind kind =
        r.queue == CopyQueue::kHostToDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    cudaError_t err = cudaMemcpyAsync(r.dst, r.src, r.size_bytes, kind, stream);
    if (err != cudaSuccess) return CudaStatus(err, "cudaMemcpyAsync");
    cudaEvent_t event;
    err = cudaEventCreateWithFlags(&event, cudaEventDisableTiming | cudaEventBlockingSync);
    if (err != cudaSuccess) return CudaStatus(err, "cudaEventCreate");
    err = cudaEventRecord(event, stream);
    if (err != cudaSuccess) {
      cudaEventDestroy(event);
      return CudaStatus(err, "cudaEventRecord");
    }
    return std::unique_ptr<CopyEvent>(std::make_unique<CudaCopyEvent>(event));
  }

  at::Device TorchDevice(Tier tier) const override {
    return tier == Tier::kGpu ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(ordinal_))
                              : at::Device(at::kCPU);
  }

  DeviceMemoryStats MemoryStats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 protected:
  void Free(Tier tier, void* data, uint64_t size_bytes) override {
    cudaSetDevice(ordinal_);
    // cudaFree synchronises the device: kernels still reading this unit finish first.
    if (tier == Tier::kGpu) {
      cudaFree(data);
    } else {
      cudaFreeHost(data);
    }
    std::lock_guard<std::mutex> lock(mu_);
    stats_.live_bytes[TierIndex(tier)] -= size_bytes;
  }

 private:
  int ordinal_;
  cudaStream_t h2d_;
  cudaStream_t d2h_;
  std::unique_ptr<CopyWorker> h2h_ = std::make_unique<CopyWorker>();
  mutable std::mutex mu_;
  DeviceMemoryStats stats_;  // Guarded by mu_
};

}  // namespace

bool CudaDeviceAvailable() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

Result<std::unique_ptr<Device>> CreateCudaDevice(int ordinal) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) return Unavailable("no CUDA device present");
  if (ordinal < 0 || ordinal >= count) {
    return InvalidArgument("CUDA device " + std::to_string(ordinal) + " does not exist (" +
                           std::to_string(count) + " present)");
  }
  err = cudaSetDevice(ordinal);
  if (err != cudaSuccess) return CudaStatus(err, "cudaSetDevice");
  cudaStream_t h2d = nullptr;
  cudaStream_t d2h = nullptr;
  err = cudaStreamCreateWithFlags(&h2d, cudaStreamNonBlocking);
  if (err != cudaSuccess) return CudaStatus(err, "creating the host->device stream");
  err = cudaStreamCreateWithFlags(&d2h, cudaStreamNonBlocking);
  if (err != cudaSuccess) {
    cudaStreamDestroy(h2d);
    return CudaStatus(err, "creating the device->host stream");
  }
  return std::unique_ptr<Device>(std::make_unique<CudaDevice>(ordinal, h2d, d2h));
}

}  // namespace mineru::residency
