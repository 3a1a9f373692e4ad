// Link probe: see link_probe.h.
#include "residency/link_probe.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/clock.h"

namespace mineru::residency {

namespace {

Result<double> BestGbps(Device& device, CopyQueue queue, void* dst, const void* src, uint64_t size,
                        bool pageable, int repeats) {
  double best = 0;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    Stopwatch w;
    MINERU_ASSIGN_OR_RETURN(std::unique_ptr<CopyEvent> e,
                            device.CopyAsync({queue, dst, src, size, pageable}));
    MINERU_RETURN_IF_ERROR(e->Wait());
    const double s = w.ElapsedSeconds();
    if (s > 0) best = std::max(best, static_cast<double>(size) / s / 1e9);
  }
  return best;
}

}  // namespace

Result<LinkProbe> MeasureLinkProbe(Device& device, const LinkProbeOptions& options) {
  if (options.size_bytes == 0) return InvalidArgument("link probe size must be positive");
  MINERU_ASSIGN_OR_RETURN(DeviceBuffer pinned, device.Allocate(Tier::kPinned, options.size_bytes));
  MINERU_ASSIGN_OR_RETURN(DeviceBuffer gpu, device.Allocate(Tier::kGpu, options.size_bytes));
  std::vector<uint8_t> pageable(options.size_bytes, 1);
  std::memset(pinned.data(), 2, options.size_bytes);
  LinkProbe probe;
  MINERU_ASSIGN_OR_RETURN(probe.h2d_gbps,
                          BestGbps(device, CopyQueue::kHostToDevice, gpu.data(), pinned.data(),
                                   options.size_bytes, false, options.repeats));
  MINERU_ASSIGN_OR_RETURN(probe.h2d_pageable_gbps,
                          BestGbps(device, CopyQueue::kHostToDevice, gpu.data(), pageable.data(),
                                   options.size_bytes, true, options.repeats));
  MINERU_ASSIGN_OR_RETURN(probe.disk_gbps,
                          BestGbps(device, CopyQueue::kHostToHost, pinned.data(), pageable.data(),
                                   options.size_bytes, true, options.repeats));
  return probe;
}

Result<std::string> PlanText(const PlanRequest& request) {
  MINERU_ASSIGN_OR_RETURN(Plan plan, MakePlan(request));
  return FormatPlan(plan, request);
}

}  // namespace mineru::residency
