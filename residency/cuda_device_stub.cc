// CudaDeviceAvailable in a build without CUDA sources.
#include "residency/cuda_device.h"

namespace mineru::residency {

bool CudaDeviceAvailable() { return false; }

}  // namespace mineru::residency
