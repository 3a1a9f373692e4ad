#include "engine/anyres_grid.h"

#include <algorithm>
#include <string>

namespace mineru::engine {

Result<AnyresGrid> SelectAnyresGrid(int64_t width, int64_t height, const AnyresOptions& options) {
  if (width <= 0 || height <= 0) {
    return InvalidArgument("anyres grid: image size " + std::to_string(width) + "x" + std::to_string(height) +
                           " is not positive");
  }
  constexpr int64_t kMaxSide = int64_t{1} << 20;
  if (width > kMaxSide || height > kMaxSide) {
    return InvalidArgument("anyres grid: image size " + std::to_string(width) + "x" + std::to_string(height) +
                           " exceeds " + std::to_string(kMaxSide) + " pixels per side");
  }
  if (options.tile_size <= 0 || options.max_tiles_per_side <= 0 || options.max_tiles_per_side > 64) {
    return InvalidArgument(
        "anyres grid: tile size and tiles per side must be positive (at most 64 per side)");
  }
  AnyresGrid best;
  int64_t best_effective = -1;
  int64_t best_waste = 0;
  for (int i = 1; i <= options.max_tiles_per_side; ++i) {
    for (int j = 1; j <= options.max_tiles_per_side; ++j) {
      const int64_t target_w = int64_t{options.tile_size} * i;
      const int64_t target_h = int64_t{options.tile_size} * j;
      // Python: scale = min(W / w, H / h); int(w * scale), int(h * scale) (truncation, doubles).
      const double scale = std::min(static_cast<double>(target_w) / static_cast<double>(width),
                                    static_cast<double>(target_h) / static_cast<double>(height));
      const auto scaled_w = static_cast<int64_t>(static_cast<double>(width) * scale);
      const auto scaled_h = static_cast<int64_t>(static_cast<double>(height) * scale);
      const int64_t effective = std::min(scaled_w * scaled_h, width * height);
      const int64_t waste = target_w * target_h - effective;
      if (effective > best_effective || (effective == best_effective && waste < best_waste)) {
        best_effective = effective;
        best_waste = waste;
        best = AnyresGrid{i, j};
      }
    }
  }
  return best;
}

}  // namespace mineru::engine
