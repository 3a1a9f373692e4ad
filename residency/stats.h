// Stats: one snapshot of the residency manager, with a fixed vocabulary, for `mineructl stats`.
#pragma once

#include <cstdint>
#include <string>

#include "residency/tier.h"

namespace mineru::residency {

struct TierStats {
  uint64_t budget_bytes = 0;     // kDisk: the registered file bytes
  uint64_t reserved_bytes = 0;   // charged against the budget (weights + KV pool + workspace)
  uint64_t allocated_bytes = 0;  // held in buffers right now
  uint64_t peak_bytes = 0;       // most allocated_bytes ever
  uint64_t weight_bytes = 0;
  uint64_t kv_bytes = 0;
  uint64_t workspace_bytes = 0;
  uint32_t units_resident = 0;
};

struct KvStats {
  uint64_t page_size_tokens = 0;
  uint64_t pages_total = 0;  // excluding the null page
  uint64_t pages_used = 0;
  uint64_t pages_free = 0;
  uint64_t pages_shared = 0;   // reference count > 1
  uint64_t pages_swapped = 0;  // held in kPinned for swapped-out sequences
  uint64_t sequences = 0;
  uint64_t tokens = 0;  // tokens stored in resident sequences (shared pages counted once per sequence)
  // 1 - tokens / (pages owned by sequences * page size), over resident sequences; 0 when empty.
  double waste_fraction = 0;
};

struct Stats {
  TierStats tiers[kNumTiers];
  uint64_t units = 0;
  uint64_t acquires = 0;
  uint64_t bytes_promoted = 0;  // copied into kGpu or kPinned
  uint64_t bytes_demoted = 0;   // dropped from kGpu or kPinned (weights stay on a slower tier)
  uint64_t prefetches_issued = 0;
  uint64_t prefetch_hits = 0;    // Acquire found the unit resident or already arriving
  uint64_t prefetch_stalls = 0;  // Acquire waited for a copy (arriving prefetch or synchronous load)
  uint64_t evictions = 0;
  uint64_t idle_demotions = 0;
  KvStats kv;
};

// Multi-line text for people ("gpu: 1.2 GiB / 6.0 GiB budget, peak ...").
std::string FormatStats(const Stats& stats);
// "1.50 GiB", "29.8 MiB", "512 B".
std::string FormatBytes(uint64_t bytes);

}  // namespace mineru::residency
