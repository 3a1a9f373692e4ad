// Reserving a forward's activation workspace on the residency manager's kGpu tier (decoder and vision
// tower alike), waiting once for prefetches in flight when the tier is momentarily full.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "residency/residency_manager.h"

namespace mineru::engine {

// An empty reservation when `manager` is null (a model without a manager).
Result<residency::WorkspaceReservation> ReserveActivations(residency::ResidencyManager* manager,
                                                           uint64_t bytes, const std::string& what);

}  // namespace mineru::engine
