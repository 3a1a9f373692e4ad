// The peak of live bytes libtorch's CPU allocator hands out on this thread while a function runs:
// a memory reporter installed through c10's profiler hook sees every allocation and free (frees of
// tensors older than the call are not reported). For checking workspace bounds against real use.
#pragma once

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <algorithm>
#include <memory>

namespace mineru::engine::testing {

class AllocationMeter final : public c10::MemoryReportingInfoBase {
 public:
  void reportMemoryUsage(void*, int64_t alloc_size, int64_t, int64_t, c10::Device) override {
    live_ += alloc_size;
    peak_ = std::max(peak_, live_);
  }
  bool memoryProfilingEnabled() const override { return true; }
  int64_t peak() const { return peak_; }

 private:
  int64_t live_ = 0;
  int64_t peak_ = 0;
};

template <typename F>
int64_t PeakAllocatedBytes(F&& run) {
  auto meter = std::make_shared<AllocationMeter>();
  {
    c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, meter);
    run();
  }
  return meter->peak();
}

}  // namespace mineru::engine::testing
