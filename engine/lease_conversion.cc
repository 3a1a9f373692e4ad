#include "engine/lease_conversion.h"

namespace mineru::engine {

namespace {

// The largest converted copy among the units `counted` selects.
template <typename Pred>
uint64_t LargestConversion(const std::vector<UnitInfo>& units, at::ScalarType compute_dtype, Pred counted) {
  const at::ScalarType stored_as = compute_dtype == at::kFloat      ? at::kFloat
                                   : compute_dtype == at::kBFloat16 ? at::kBFloat16
                                                                    : at::kHalf;
  uint64_t largest = 0;
  for (const UnitInfo& u : units) {
    if (!counted(u.kind)) continue;
    uint64_t bytes = 0;
    for (const UnitTensor& t : u.tensors) {
      const at::ScalarType stored = t.dtype == StorageDtype::kF32    ? at::kFloat
                                    : t.dtype == StorageDtype::kBF16 ? at::kBFloat16
                                                                     : at::kHalf;
      if (stored == stored_as) continue;
      uint64_t numel = 1;
      for (int64_t dim : t.shape) numel *= static_cast<uint64_t>(dim);
      bytes += numel * c10::elementSize(compute_dtype);
    }
    largest = std::max(largest, bytes);
  }
  return largest;
}

}  // namespace

uint64_t LeaseConversionBytes(const std::vector<UnitInfo>& units, at::ScalarType compute_dtype) {
  return LargestConversion(units, compute_dtype, [](UnitKind k) {
    return k == UnitKind::kEmbedding || k == UnitKind::kDecoderLayer || k == UnitKind::kHead;
  });
}

uint64_t VisionLeaseConversionBytes(const std::vector<UnitInfo>& units, at::ScalarType compute_dtype) {
  return LargestConversion(units, compute_dtype, [](UnitKind k) {
    return k == UnitKind::kVisionEmbeddings || k == UnitKind::kVisionLayer || k == UnitKind::kProjector;
  });
}

}  // namespace mineru::engine
