// Stats formatting for people.
#include "residency/stats.h"

#include <cstdio>
#include <sstream>

namespace mineru::residency {

std::string FormatBytes(uint64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes >= (1ULL << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", b / (1ULL << 30));
  } else if (bytes >= (1ULL << 20)) {
    std::snprintf(buf, sizeof(buf), "%.1f MiB", b / (1ULL << 20));
  } else if (bytes >= (1ULL << 10)) {
    std::snprintf(buf, sizeof(buf), "%.1f KiB", b / (1ULL << 10));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu B", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

std::string FormatStats(const Stats& stats) {
  std::ostringstream out;
  for (Tier t : kAllTiers) {
    const TierStats& ts = stats.tiers[TierIndex(t)];
    out << TierName(t) << ": " << FormatBytes(ts.allocated_bytes) << " allocated, "
        << FormatBytes(ts.reserved_bytes) << " reserved of " << FormatBytes(ts.budget_bytes)
        << " budget, peak " << FormatBytes(ts.peak_bytes) << "; " << ts.units_resident << "/" << stats.units
        << " units; weights " << FormatBytes(ts.weight_bytes) << ", kv " << FormatBytes(ts.kv_bytes)
        << ", workspace " << FormatBytes(ts.workspace_bytes) << "\n";
  }
  out << "traffic: " << FormatBytes(stats.bytes_promoted) << " promoted, " << FormatBytes(stats.bytes_demoted)
      << " demoted, " << stats.evictions << " evictions, " << stats.idle_demotions << " idle demotions\n";
  out << "leases: " << stats.acquires << " acquires, " << stats.prefetches_issued << " prefetches, "
      << stats.prefetch_hits << " hits, " << stats.prefetch_stalls << " stalls\n";
  const KvStats& kv = stats.kv;
  char waste[32];
  std::snprintf(waste, sizeof(waste), "%.2f%%", kv.waste_fraction * 100);
  out << "kv: " << kv.pages_used << "/" << kv.pages_total << " pages used (" << kv.page_size_tokens
      << " tokens each), " << kv.pages_shared << " shared, " << kv.pages_swapped << " swapped, "
      << kv.sequences << " sequences, " << kv.tokens << " tokens, waste " << waste << "\n";
  return out.str();
}

}  // namespace mineru::residency
