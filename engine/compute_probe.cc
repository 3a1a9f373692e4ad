#include "engine/compute_probe.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "common/clock.h"
#include "engine/torch_status.h"

namespace mineru::engine {
namespace {

// Best of `repeats` timings of `fn`, in seconds.
template <typename F>
double BestSeconds(int repeats, F&& fn) {
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    Stopwatch sw;
    fn();
    best = std::min(best, sw.ElapsedSeconds());
  }
  return best;
}

}  // namespace

Result<ComputeProbe> MeasureComputeProbe() {
  return CatchTorch("compute probe", []() -> Result<ComputeProbe> {
    ComputeProbe probe;
    // A decoder-like matmul: 256 tokens x 896 -> 4864.
    const int64_t m = 256, k = 896, n = 4864;
    at::Tensor a = at::randn({m, k});
    at::Tensor b = at::randn({k, n});
    at::Tensor c = at::matmul(a, b);  // warm-up
    double s = BestSeconds(5, [&] { c = at::matmul(a, b); });
    probe.matmul_gflops = 2.0 * static_cast<double>(m * k * n) / s * 1e-9;
    // Weight read: a 64 MiB float matrix times one vector.
    at::Tensor w = at::randn({4096, 4096});
    at::Tensor x = at::randn({4096, 1});
    at::Tensor y = at::matmul(w, x);
    s = BestSeconds(5, [&] { y = at::matmul(w, x); });
    probe.weight_read_gbps = static_cast<double>(w.numel() * w.element_size()) / s * 1e-9;
    return probe;
  });
}

UnitComputeEstimate EstimateDecodeCompute(const UnitInfo& unit, const ComputeProbe& probe) {
  uint64_t params = 0;
  for (const auto& t : unit.tensors) {
    uint64_t n = 1;
    for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);
    params += n;
  }
  UnitComputeEstimate e;
  if (probe.weight_read_gbps > 0)
    e.ms_fixed = static_cast<double>(unit.size_bytes) / (probe.weight_read_gbps * 1e6);
  if (probe.matmul_gflops > 0) e.ms_per_seq = 2.0 * static_cast<double>(params) / (probe.matmul_gflops * 1e6);
  return e;
}

}  // namespace mineru::engine
