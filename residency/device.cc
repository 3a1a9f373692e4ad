// DeviceBuffer ownership and tensor views over tier memory.
#include "residency/device.h"

#include <string>
#include <utility>

namespace mineru::residency {

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : device_(std::exchange(other.device_, nullptr)),
      tier_(other.tier_),
      data_(std::exchange(other.data_, nullptr)),
      size_bytes_(std::exchange(other.size_bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    device_ = std::exchange(other.device_, nullptr);
    tier_ = other.tier_;
    data_ = std::exchange(other.data_, nullptr);
    size_bytes_ = std::exchange(other.size_bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::Reset() {
  if (data_ != nullptr && device_ != nullptr) device_->Free(tier_, data_, size_bytes_);
  device_ = nullptr;
  data_ = nullptr;
  size_bytes_ = 0;
}

at::ScalarType ToScalarType(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return at::kFloat;
    case DType::kF16:
      return at::kHalf;
    case DType::kBF16:
      return at::kBFloat16;
  }
  return at::kFloat;
}

Result<at::Tensor> TensorOver(const Device& device, Tier tier, void* data, at::ScalarType dtype,
                              const std::vector<int64_t>& shape) {
  try {
    return at::from_blob(data, shape, at::TensorOptions().dtype(dtype).device(device.TorchDevice(tier)));
  } catch (const std::exception& e) {
    return Internal(std::string("making a tensor view over ") + std::string(TierName(tier)) +
                    " memory: " + e.what());
  }
}

}  // namespace mineru::residency
