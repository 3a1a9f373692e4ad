// CudaDevice: the Device of a CUDA build (compiled only when MINERU_HAVE_CUDA, i.e. against a CUDA
// libtorch). kGpu buffers come from cudaMalloc (not libtorch's caching allocator, so a shrunk budget
// really returns memory to the driver); kPinned buffers from cudaHostAlloc (the manager allocates its
// pinned arena once); host->device and device->host copies run on two dedicated non-blocking streams,
// each copy completing a CUDA event created with blocking sync (waiting sleeps in the driver, no polling);
// host->host reads (file -> pinned) run on a CopyWorker thread in large sequential chunks.
// Limits: Free calls cudaFree, which synchronises the device, so kernels still reading an evicted unit
// finish first (correct, not free: eviction stalls the compute stream). Not yet run on a GPU.
#pragma once

#include <memory>

#include "common/result.h"
#include "residency/device.h"

namespace mineru::residency {

// True when this build has CUDA sources and a CUDA device is present.
bool CudaDeviceAvailable();

#if defined(MINERU_HAVE_CUDA)
// The device `ordinal` (0 = the first GPU).
Result<std::unique_ptr<Device>> CreateCudaDevice(int ordinal);
#endif

}  // namespace mineru::residency
