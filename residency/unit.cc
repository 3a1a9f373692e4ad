// Unit validation, buffer layout and the rule-1 demotion rank.
// Design note: a unit's tensors are packed into one kGpu/kPinned buffer in spec order, each aligned to
// kTensorAlignBytes so every dtype view is aligned. DemotionRank encodes residency.md rule 1; the
// middle decoder layers are ranked in bit-reversed order so that demoting the lowest ranks first spreads
// the demoted layers evenly over the stack.
#include "residency/unit.h"

#include <set>

namespace mineru::residency {

uint64_t DTypeSizeBytes(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
      return 2;
  }
  return 0;
}

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "F32";
    case DType::kF16:
      return "F16";
    case DType::kBF16:
      return "BF16";
  }
  return "?";
}

std::string_view UnitKindName(UnitKind kind) {
  switch (kind) {
    case UnitKind::kEmbedding:
      return "embedding";
    case UnitKind::kLmHead:
      return "lm_head";
    case UnitKind::kNorm:
      return "norm";
    case UnitKind::kDecoderLayer:
      return "decoder_layer";
    case UnitKind::kVisionEmbedding:
      return "vision_embedding";
    case UnitKind::kVisionLayer:
      return "vision_layer";
    case UnitKind::kProjector:
      return "projector";
    case UnitKind::kOther:
      return "other";
  }
  return "?";
}

namespace {
uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

uint64_t UnitFootprintBytes(const UnitSpec& unit) {
  uint64_t total = 0;
  for (const TensorSpec& t : unit.tensors) total += AlignUp(t.size_bytes, kTensorAlignBytes);
  return AlignUp(total, kBufferAlignBytes);
}

std::vector<uint64_t> UnitTensorOffsets(const UnitSpec& unit) {
  std::vector<uint64_t> offsets;
  offsets.reserve(unit.tensors.size());
  uint64_t at = 0;
  for (const TensorSpec& t : unit.tensors) {
    offsets.push_back(at);
    at += AlignUp(t.size_bytes, kTensorAlignBytes);
  }
  return offsets;
}

Status ValidateUnit(const UnitSpec& unit, const std::vector<uint64_t>& region_sizes) {
  const std::string where = "unit '" + unit.name + "'";
  if (unit.name.empty()) return InvalidArgument("a unit needs a name");
  if (unit.tensors.empty()) return InvalidArgument(where + " has no tensors");
  std::set<std::string> names;
  for (const TensorSpec& t : unit.tensors) {
    const std::string tw = where + " tensor '" + t.name + "'";
    if (!names.insert(t.name).second) return InvalidArgument(tw + " appears twice");
    if (t.region >= region_sizes.size()) {
      return InvalidArgument(tw + " names region " + std::to_string(t.region) + ", which is not registered");
    }
    uint64_t numel = 1;
    for (int64_t d : t.shape) {
      if (d < 0) return InvalidArgument(tw + " has a negative dimension");
      if (d != 0 && numel > UINT64_MAX / static_cast<uint64_t>(d))
        return InvalidArgument(tw + " is too large");
      numel *= static_cast<uint64_t>(d);
    }
    const uint64_t elem = DTypeSizeBytes(t.dtype);
    if (numel > UINT64_MAX / elem || numel * elem != t.size_bytes) {
      return InvalidArgument(tw + ": " + std::to_string(t.size_bytes) + " bytes do not match its shape and " +
                             std::string(DTypeName(t.dtype)));
    }
    if (t.size_bytes == 0) return InvalidArgument(tw + " is empty");
    const uint64_t region = region_sizes[t.region];
    if (t.offset_bytes > region || t.size_bytes > region - t.offset_bytes) {
      return InvalidArgument(tw + " (bytes " + std::to_string(t.offset_bytes) + ".." +
                             std::to_string(t.offset_bytes + t.size_bytes) + ") lies outside its file of " +
                             std::to_string(region) + " bytes");
    }
  }
  return Status::Ok();
}

namespace {
// Bit-reversal permutation rank of i among [0, n): spreads consecutive ranks over the range.
int64_t BitReversedRank(int i, int n) {
  if (n <= 1) return 0;
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  // Rank = position of i in the sequence of bit-reversed values < n.
  int64_t rank = 0;
  for (int v = 0; v < (1 << bits); ++v) {
    int r = 0;
    for (int b = 0; b < bits; ++b) {
      if (v & (1 << b)) r |= 1 << (bits - 1 - b);
    }
    if (r >= n) continue;
    if (r == i) return rank;
    ++rank;
  }
  return rank;
}
}  // namespace

int64_t DemotionRank(UnitKind kind, int index, int num_decoder_layers) {
  // Bands, lowest demoted first; 1e6 apart so the in-band order never crosses a band.
  constexpr int64_t kBand = 1'000'000;
  switch (kind) {
    case UnitKind::kVisionLayer:
      return 1 * kBand + index;
    case UnitKind::kVisionEmbedding:
      return 2 * kBand;
    case UnitKind::kOther:
      return 3 * kBand;
    case UnitKind::kDecoderLayer: {
      if (index <= 0 || index >= num_decoder_layers - 1) return 5 * kBand + index;
      // Middle layers 1..n-2: bit-reversed order over the middle.
      return 4 * kBand + BitReversedRank(index - 1, num_decoder_layers - 2);
    }
    case UnitKind::kProjector:
      return 6 * kBand;
    case UnitKind::kNorm:
      return 7 * kBand;
    case UnitKind::kLmHead:
      return 8 * kBand;
    case UnitKind::kEmbedding:
      return 8 * kBand + 1;
  }
  return 0;
}

}  // namespace mineru::residency
