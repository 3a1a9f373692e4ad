// Link probe: measures copy bandwidth per direction on a Device, for the planner (residency.md rule 5:
// a startup probe measures link bandwidth; per-unit compute is measured by the engine).
// Design note: copies `size_bytes` several times per direction between a kPinned buffer, a kGpu buffer
// and pageable host memory, and keeps the best (least disturbed) rate. It allocates through the device,
// so run it before the manager takes its budget, or with room to spare.
#pragma once

#include <cstdint>

#include "common/result.h"
#include "residency/device.h"
#include "residency/planner.h"

namespace mineru::residency {

struct LinkProbeOptions {
  uint64_t size_bytes = 64ull << 20;
  int repeats = 3;
};

// h2d_gbps (pinned -> kGpu), h2d_pageable_gbps (pageable -> kGpu) and disk_gbps (pageable -> pinned, a
// stand-in for the page-cache path; cold-disk reads are slower) in GB/s.
Result<LinkProbe> MeasureLinkProbe(Device& device, const LinkProbeOptions& options = {});

// MakePlan + FormatPlan: the text `minerud plan` prints, or the planner's error.
Result<std::string> PlanText(const PlanRequest& request);

}  // namespace mineru::residency
