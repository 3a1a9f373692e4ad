// Tier: where a unit's bytes live. Design note: three tiers, ordered fastest first.
//   kGpu    device memory (on HostDevice: host memory with the same accounting and copy paths)
//   kPinned page-locked host memory, one arena allocated once
//   kDisk   the mmap'd safetensors file itself: zero copy, read-only, never evicted
// Budgets apply to kGpu and kPinned; kDisk is bounded by the file.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "common/result.h"

namespace mineru::residency {

enum class Tier : uint8_t { kGpu = 0, kPinned = 1, kDisk = 2 };
inline constexpr int kNumTiers = 3;
inline constexpr std::array<Tier, kNumTiers> kAllTiers = {Tier::kGpu, Tier::kPinned, Tier::kDisk};

inline constexpr int TierIndex(Tier tier) { return static_cast<int>(tier); }
// "gpu", "pinned", "disk".
std::string_view TierName(Tier tier);
// Accepts the names above; anything else is kInvalidArgument.
Result<Tier> ParseTier(std::string_view text);

}  // namespace mineru::residency
