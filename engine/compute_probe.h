// Compute probe: how fast this machine's libtorch runs the two shapes of work a unit does, for the
// residency planner (residency.md rule 5). Decode reads every weight once per step (bandwidth-bound);
// each sequence in the batch adds 2 FLOPs per parameter (matmul-bound).
#pragma once

#include <cstdint>

#include "common/result.h"
#include "engine/model_units.h"

namespace mineru::engine {

struct ComputeProbe {
  double matmul_gflops = 0;     // dense matmul of model-like shapes, in the compute dtype
  double weight_read_gbps = 0;  // matrix-vector product over a large weight: bytes of weight read per s
};

// Runs a short measurement (a few hundred ms) on the CPU with libtorch.
Result<ComputeProbe> MeasureComputeProbe();

// Per-unit decode step estimate: a fixed part (reading the unit's weights) and a part per sequence.
struct UnitComputeEstimate {
  double ms_fixed = 0;
  double ms_per_seq = 0;
};
UnitComputeEstimate EstimateDecodeCompute(const UnitInfo& unit, const ComputeProbe& probe);

}  // namespace mineru::engine
