// The copy a weight source makes when it converts a unit's stored dtype to the compute dtype for the
// duration of a lease (ResidencyWeightSource does). Leases are taken one at a time, so a forward needs
// room for the largest unit's converted bytes on top of its activations (decoder_workspace.h,
// vision_workspace.h).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "engine/model_units.h"

namespace mineru::engine {

// The largest decoder unit (embedding, layer, head) counted in `compute_dtype` over its tensors whose
// stored dtype differs: what a per-lease conversion allocates; 0 when the checkpoint is in that dtype.
uint64_t LeaseConversionBytes(const std::vector<UnitInfo>& units, at::ScalarType compute_dtype);
// The same over the vision units (embeddings, encoder layers, projector), for the vision encode.
uint64_t VisionLeaseConversionBytes(const std::vector<UnitInfo>& units, at::ScalarType compute_dtype);

}  // namespace mineru::engine
