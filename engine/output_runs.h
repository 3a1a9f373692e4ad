// How the CPU product kernels share a product's outputs among libtorch's threads. Splitting outputs
// never changes how any one output is computed, so the split may follow the threads' progress.
#pragma once

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>

namespace mineru::engine {

// Runs fn(segment, n0, n1) over the outputs [0, sizes[segment]) of every segment (one per weight). The
// threads take runs in turn as they finish, each run a share of what is left (at most `max_run`
// outputs, a multiple of `multiple`, never crossing into the next segment), so runs shrink towards the
// end: a thread slowed down (by another program, or a core shared in a VM) leaves the rest to the
// others, and the threads finish close together instead of one waiting out another's last long run.
template <typename Fn>
void ForOutputRuns(std::span<const int64_t> sizes, int64_t multiple, const Fn& fn, int64_t max_run = 192) {
  const int64_t threads = at::get_num_threads();
  int64_t total = 0;
  for (int64_t n : sizes) total += n;
  if (total == 0) return;
  std::atomic<int64_t> next{0};
  at::parallel_for(0, std::min(threads, (total + multiple - 1) / multiple), 1, [&](int64_t, int64_t) {
    int64_t p = next.load();
    while (p < total) {
      size_t seg = 0;
      int64_t seg_start = 0;
      while (p >= seg_start + sizes[seg]) seg_start += sizes[seg++];
      const int64_t share = std::min<int64_t>(max_run, (total - p) / (3 * threads));
      const int64_t run = std::max(multiple, share / multiple * multiple);
      const int64_t end = std::min(p + run, seg_start + sizes[seg]);
      if (next.compare_exchange_weak(p, end)) {
        fn(seg, p - seg_start, end - seg_start);
        p = next.load();
      }
    }
  });
}

}  // namespace mineru::engine
