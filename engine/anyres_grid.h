// The "anyres" grid choice of MinerU 2.0 (image_aspect_ratio square_anyres_max_9): among the
// candidate resolutions (tile*i, tile*j), i, j in 1..max_tiles_per_side (i outer, j inner), pick the
// one that shows the page at the highest effective resolution (the page scaled to fit, sizes
// truncated to integers, capped at the page's own pixel count); ties go to the candidate with the
// least wasted area, exact ties to the first candidate.
#pragma once

#include <cstdint>

#include "common/result.h"

namespace mineru::engine {

struct AnyresGrid {
  int columns = 1;  // tiles across (gw)
  int rows = 1;     // tiles down (gh)
  int num_tiles() const { return columns * rows; }
  friend bool operator==(const AnyresGrid&, const AnyresGrid&) = default;
};

struct AnyresOptions {
  int tile_size = 384;
  int max_tiles_per_side = 4;
};

// The grid for a `width` x `height` page; errors on non-positive sizes or options.
Result<AnyresGrid> SelectAnyresGrid(int64_t width, int64_t height, const AnyresOptions& options = {});

}  // namespace mineru::engine
