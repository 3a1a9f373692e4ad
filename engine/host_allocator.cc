#include "engine/host_allocator.h"

#include <malloc.h>

namespace mineru::engine {

void KeepFreedHostMemoryForReuse() {
  constexpr int kKeep = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kKeep);
  mallopt(M_TRIM_THRESHOLD, kKeep);
}

void TrimHostMemory() { malloc_trim(0); }

}  // namespace mineru::engine
