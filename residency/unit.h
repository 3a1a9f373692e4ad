// Units: the weights that move together (one decoder layer, one vision layer, the embedding, the
// projector, the norms). Design note: residency/ knows bytes, not models. The engine describes each
// unit by its tensors' dtype, shape and byte range inside an mmap'd safetensors file region that it
// registered with the manager; the manager never parses the checkpoint. The kind and index only steer
// the demotion order of residency.md rule 1 (see DemotionRank).
// Invariants checked by ValidateUnit: every tensor lies inside its region, size == numel * dtype size,
// the names are unique, the unit is not empty.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace mineru::residency {

enum class DType : uint8_t { kF32, kF16, kBF16 };
uint64_t DTypeSizeBytes(DType dtype);
std::string_view DTypeName(DType dtype);  // "F32", "F16", "BF16" as safetensors spells them

enum class UnitKind : uint8_t {
  kEmbedding,        // token embedding (also the lm_head when tied)
  kLmHead,           // untied lm_head
  kNorm,             // final norm and other small tensors that stay together
  kDecoderLayer,     // index = layer number
  kVisionEmbedding,  // patch + position embedding
  kVisionLayer,      // index = encoder layer number
  kProjector,        // mm_projector (+ image_newline)
  kOther,
};
std::string_view UnitKindName(UnitKind kind);

// Identifies a registered file region (one mmap'd safetensors file).
using RegionId = uint32_t;
// Identifies a registered unit; dense, starting at 0, in registration order.
using UnitId = uint32_t;

struct TensorSpec {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  RegionId region = 0;
  uint64_t offset_bytes = 0;  // from the start of the region (the file), not of the data section
  uint64_t size_bytes = 0;    // must equal numel * DTypeSizeBytes(dtype)
};

struct UnitSpec {
  std::string name;  // e.g. "decoder.3"; unique among units
  UnitKind kind = UnitKind::kOther;
  int index = 0;  // layer number for the layer kinds
  std::vector<TensorSpec> tensors;
};

// Tensors are placed in a tier buffer one after another, each aligned to this many bytes.
inline constexpr uint64_t kTensorAlignBytes = 256;
// A unit's buffer is a whole number of these (so budget accounting matches what a device allocates).
inline constexpr uint64_t kBufferAlignBytes = 4096;

// Bytes the unit occupies in a kGpu or kPinned buffer: tensor sizes, each rounded up to
// kTensorAlignBytes, the total rounded up to kBufferAlignBytes.
uint64_t UnitFootprintBytes(const UnitSpec& unit);
// Offsets of each tensor inside that buffer, in the order of unit.tensors.
std::vector<uint64_t> UnitTensorOffsets(const UnitSpec& unit);

// Checks the invariants above against the sizes of the registered regions (indexed by RegionId).
Status ValidateUnit(const UnitSpec& unit, const std::vector<uint64_t>& region_sizes);

// residency.md rule 1 as a number: lower ranks are demoted first when memory runs short.
// Vision units < decoder middle layers (spread evenly: bit-reversed order) < first/last decoder
// layers < projector < norms < embedding / lm_head. `num_decoder_layers` places "first" and "last".
int64_t DemotionRank(UnitKind kind, int index, int num_decoder_layers);

}  // namespace mineru::residency
