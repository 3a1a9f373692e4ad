// Tier names: the spelling used in config, stats and error messages.
#include "residency/tier.h"

#include <string>

namespace mineru::residency {

std::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kGpu:
      return "gpu";
    case Tier::kPinned:
      return "pinned";
    case Tier::kDisk:
      return "disk";
  }
  return "unknown";
}

Result<Tier> ParseTier(std::string_view text) {
  for (Tier tier : kAllTiers) {
    if (text == TierName(tier)) return tier;
  }
  return InvalidArgument("unknown tier '" + std::string(text) + "' (expected gpu, pinned or disk)");
}

}  // namespace mineru::residency
