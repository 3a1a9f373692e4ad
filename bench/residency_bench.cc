// residency_bench: pass time of the residency manager at budgets of 100/75/50/25% of the decoder layers,
// side by side, in one run, against
//   (a) the fully resident model without a manager (compute only),
//   (b) the link-bound lower bound max(compute, (weights - budget) / link),
//   (c) the naive policy: synchronous copies from pageable memory, LRU, no prefetch (Accelerate's hooks),
//   (d) the planner's prediction for the same placement.
// On HostDevice with an emulated link (copies paced to --link-gbps for pinned memory, --pageable-gbps for
// the mmap'd file) and synthetic compute per unit (a timed wait, as the host waits for a GPU kernel).
// Sizes are the real decoder's: 24 layers of 29.8 MB and a 272 MB embedding (tied: used first, as lookup,
// and last, as lm_head). This machine copies memory at a few GB/s, far below a PCIe 4 link, so every time is
// dilated by --slowdown and sizes scaled by --scale (copy and compute alike, so every ratio is unchanged);
// times are printed back in nominal milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/mapped_region.h"
#include "residency/host_device.h"
#include "residency/planner.h"
#include "residency/residency_manager.h"

namespace mineru::residency {
namespace {

struct Config {
  double link_gbps = 25;     // PCIe 4, pinned
  double pageable_gbps = 8;  // pageable host memory over the same link
  double slowdown = 64;      // time dilation
  double scale = 0.125;      // size scale
  int passes = 8;
  int depth = 0;                              // 0 = chosen by the planner
  std::vector<double> layer_ms = {1.0, 0.1};  // prefill-like and decode-like compute per decoder layer
};

constexpr uint64_t kLayerBytes = 29'800'000;
constexpr uint64_t kEmbedBytes = 272'000'000;
constexpr int kLayers = 24;

struct Model {
  MappedRegion region;
  std::vector<UnitSpec> units;  // 0 = embedding, 1..24 = layers
};

Model MakeModel(double scale) {
  Model m;
  const uint64_t layer = static_cast<uint64_t>(kLayerBytes * scale) / 4096 * 4096;
  const uint64_t embed = static_cast<uint64_t>(kEmbedBytes * scale) / 4096 * 4096;
  m.region = std::move(MappedRegion::Anonymous(embed + kLayers * layer + 4096)).value();
  std::mt19937_64 rng(1);
  auto* words = reinterpret_cast<uint64_t*>(m.region.data());
  for (uint64_t i = 0; i < m.region.size() / 8; ++i) words[i] = rng();
  uint64_t at = 0;
  auto add = [&](std::string name, UnitKind kind, int index, uint64_t bytes) {
    UnitSpec u;
    u.name = std::move(name);
    u.kind = kind;
    u.index = index;
    u.tensors.push_back({"w", DType::kBF16, {static_cast<int64_t>(bytes / 2)}, 0, at, bytes});
    at += bytes;
    m.units.push_back(std::move(u));
  };
  add("embedding", UnitKind::kEmbedding, 0, embed);
  for (int i = 0; i < kLayers; ++i) add("decoder." + std::to_string(i), UnitKind::kDecoderLayer, i, layer);
  return m;
}

// Waits out `ms` of emulated compute.
void Compute(double ms) {
  if (ms <= 0) return;
  std::this_thread::sleep_until(MonoNow() + std::chrono::nanoseconds(static_cast<int64_t>(ms * 1e6)));
}

struct Setup {
  const Config& cfg;
  const Model& model;
  double dilate() const { return cfg.slowdown * cfg.scale; }  // real ms per nominal ms
  HostDeviceOptions link() const {
    HostDeviceOptions o;
    o.h2d_gbps = cfg.link_gbps / cfg.slowdown;
    o.h2d_pageable_gbps = cfg.pageable_gbps / cfg.slowdown;
    o.d2h_gbps = cfg.link_gbps / cfg.slowdown;
    return o;
  }
};

// Compute (nominal ms) of each schedule entry: embedding lookup, 24 layers, lm_head on the embedding.
std::vector<std::pair<int, double>> Schedule(double layer_ms) {
  std::vector<std::pair<int, double>> s;
  s.push_back({0, 0.05});
  for (int i = 1; i <= kLayers; ++i) s.push_back({i, layer_ms});
  s.push_back({0, 4 * layer_ms});
  return s;
}

// The median of per-pass times (this machine is shared: the median resists a neighbour's burst).
double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double Mean(const std::vector<double>& v) {
  double total = 0;
  for (double x : v) total += x;
  return total / static_cast<double>(v.size());
}

double ResidentPassMs(const Setup& setup, double layer_ms) {
  const auto sched = Schedule(layer_ms);
  std::vector<double> times;
  for (int p = 0; p < setup.cfg.passes; ++p) {
    Stopwatch w;
    for (const auto& [unit, ms] : sched) Compute(ms * setup.dilate());
    times.push_back(w.ElapsedMillis() / setup.dilate());
  }
  return Median(times);
}

struct Measured {
  double pass_ms = 0;
  double resident_ms = 0;  // (a), measured pass by pass alternating with the managed passes
  uint64_t peak_bytes = 0;
  uint64_t streamed_bytes = 0;  // per pass, at the scaled size
  double stalls = 0;            // per pass: Acquires that waited for a copy
};

Measured ManagedPassMs(const Setup& setup, double layer_ms, uint64_t budget, bool naive, int depth,
                       double* after_idle_ms = nullptr) {
  HostDevice device(setup.link());
  ResidencyOptions o;
  o.gpu_budget_bytes = budget;
  o.prefetch_depth = depth;
  uint64_t total = 0;
  for (const UnitSpec& u : setup.model.units) total += UnitFootprintBytes(u);
  if (naive) {
    o.prefetch = false;
    o.eviction = EvictionPolicy::kLru;
    o.stage_through_pinned = false;
    o.pinned_budget_bytes = 0;
  } else {
    o.pinned_budget_bytes = total;  // the weights sit in the pinned arena; streaming reads pinned memory
  }
  auto manager = std::move(ResidencyManager::Create(&device, o)).value();
  (void)manager->AddRegion(setup.model.region).value();
  std::vector<UnitId> ids;
  for (const UnitSpec& u : setup.model.units) ids.push_back(manager->RegisterUnit(u).value());
  if (!naive) {
    for (UnitId id : ids) (void)manager->Prefetch(id, Tier::kPinned);
    (void)manager->WaitForCopies();
  }
  const auto sched = Schedule(layer_ms);
  std::vector<UnitId> order;
  for (const auto& [unit, ms] : sched) order.push_back(ids[unit]);
  (void)manager->AnnounceSchedule(order);
  auto pass = [&] {
    for (const auto& [unit, ms] : sched) {
      auto lease = manager->Acquire(ids[unit], Tier::kGpu);
      if (!lease.ok()) {
        std::fprintf(stderr, "acquire failed: %s\n", lease.status().ToString().c_str());
        std::exit(1);
      }
      Compute(ms * setup.dilate());
    }
  };
  pass();  // warm-up: the first pass fills the resident set
  (void)manager->WaitForCopies();
  const uint64_t promoted = manager->GetStats().bytes_promoted;
  const uint64_t stalls = manager->GetStats().prefetch_stalls;
  // (a) is measured in two blocks around the managed block, so a neighbour's burst on this shared machine
  // weighs on both alike; the managed passes run back to back (prefetch crosses pass boundaries).
  std::vector<double> times;
  std::vector<double> resident_times;
  auto resident_block = [&] {
    for (int p = 0; p < setup.cfg.passes; ++p) {
      Stopwatch r;
      for (const auto& [unit, ms] : sched) Compute(ms * setup.dilate());
      resident_times.push_back(r.ElapsedMillis() / setup.dilate());
    }
  };
  resident_block();
  Stopwatch block;
  for (int p = 0; p < setup.cfg.passes; ++p) pass();
  times.push_back(block.ElapsedMillis() / setup.dilate() / setup.cfg.passes);
  resident_block();
  Measured m;
  m.pass_ms = Mean(times);
  m.resident_ms = Mean(resident_times);
  const Stats s = manager->GetStats();
  m.peak_bytes = device.MemoryStats().peak_bytes[0];
  m.streamed_bytes = (s.bytes_promoted - promoted) / setup.cfg.passes;
  m.stalls = static_cast<double>(s.prefetch_stalls - stalls) / setup.cfg.passes;
  if (after_idle_ms != nullptr) {
    // Idle demotion to pinned memory, then the first pass: every unit is promoted back on the way.
    (void)manager->DemoteAll(Tier::kPinned);
    (void)manager->AnnounceSchedule(order);
    Stopwatch w;
    pass();
    *after_idle_ms = w.ElapsedMillis() / setup.dilate();
  }
  if (m.peak_bytes > budget) {
    std::fprintf(stderr, "peak %llu > budget %llu\n", static_cast<unsigned long long>(m.peak_bytes),
                 static_cast<unsigned long long>(budget));
    std::exit(1);
  }
  return m;
}

// The planner's prediction, as the daemon would make it: per-unit compute from the probe (here the
// resident pass, measured above, scaled onto the units), link bandwidths, the budget. depth 0 = the planner
// chooses the prefetch depth, which the managed run then uses.
Result<Plan> PlanFor(const Setup& setup, double layer_ms, uint64_t budget, double compute_scale, int depth) {
  // The planner sees each unit once per pass; the tied embedding's two uses are one unit with both costs.
  PlanRequest r;
  const auto sched = Schedule(layer_ms);
  for (size_t i = 0; i + 1 < sched.size(); ++i) {
    const UnitSpec& u = setup.model.units[sched[i].first];
    double ms = sched[i].second;
    if (sched[i].first == 0) ms += sched.back().second;
    r.units.push_back(
        {u.name, u.kind, u.index, UnitFootprintBytes(u), ms * compute_scale * setup.dilate(), 0});
  }
  r.gpu_budget_bytes = budget;
  r.pinned_budget_bytes = UINT64_MAX;
  r.probe.h2d_gbps = setup.cfg.link_gbps / setup.cfg.slowdown;
  r.probe.h2d_pageable_gbps = setup.cfg.pageable_gbps / setup.cfg.slowdown;
  r.prefetch_depth = depth;
  return PlanForBatch(r, 1);
}

int Main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const double v = std::atof(argv[i + 1]);
    if (k == "--link-gbps")
      cfg.link_gbps = v;
    else if (k == "--pageable-gbps")
      cfg.pageable_gbps = v;
    else if (k == "--slowdown")
      cfg.slowdown = v;
    else if (k == "--scale")
      cfg.scale = v;
    else if (k == "--passes")
      cfg.passes = static_cast<int>(v);
    else if (k == "--depth")
      cfg.depth = static_cast<int>(v);
    else if (k == "--layer-ms")
      cfg.layer_ms = {v};
    else {
      std::fprintf(
          stderr,
          "usage: residency_bench [--link-gbps 25] [--pageable-gbps 8] [--slowdown 64] [--scale 0.125]"
          " [--passes 8] [--depth 0=planner] [--layer-ms X]\n");
      return 2;
    }
  }
  Model model = MakeModel(cfg.scale);
  Setup setup{cfg, model};
  const uint64_t embed = UnitFootprintBytes(model.units[0]);
  const uint64_t layer = UnitFootprintBytes(model.units[1]);
  std::printf(
      "residency_bench: HostDevice, link %.1f GB/s pinned / %.1f GB/s pageable (nominal), "
      "time x%.0f, sizes x%.2f, %d passes; times in nominal ms per pass\n",
      cfg.link_gbps, cfg.pageable_gbps, cfg.slowdown, cfg.scale, cfg.passes);
  std::printf(
      "budget = embedding + %% of the 24 decoder layers; lower bound = max(compute, (weights - budget) / "
      "link)\n\n");
  std::printf(
      "| layer ms | budget | depth | streamed MB | stalls | resident (a) | managed | bound (b) | naive (c) | "
      "planner (d) | managed/resident | bound/managed | naive/managed | planner err |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  struct IdleRow {
    double layer_ms, steady_ms, after_idle_ms;
  };
  std::vector<IdleRow> idle_rows;
  for (double layer_ms : cfg.layer_ms) {
    const double resident = ResidentPassMs(setup, layer_ms);
    double compute = 0;
    for (const auto& [u, ms] : Schedule(layer_ms)) compute += ms;
    const double probe_scale = resident / compute;  // measured per-unit compute over nominal
    for (int pct : {100, 75, 50, 25}) {
      const uint64_t budget = embed + static_cast<uint64_t>(kLayers) * layer * pct / 100;
      auto plan = PlanFor(setup, layer_ms, budget, probe_scale, cfg.depth);
      if (!plan.ok()) {
        std::fprintf(stderr, "planner: %s\n", plan.status().ToString().c_str());
        return 1;
      }
      const int depth = plan->prefetch_depth;
      const double planner = plan->pass_ms / setup.dilate();
      double after_idle = 0;
      const Measured managed =
          ManagedPassMs(setup, layer_ms, budget, false, depth, pct == 100 ? &after_idle : nullptr);
      if (pct == 100) idle_rows.push_back({layer_ms, managed.pass_ms, after_idle});
      const Measured naive = ManagedPassMs(setup, layer_ms, budget, true, 1);
      const double nominal_layer_bytes = static_cast<double>(kLayerBytes);
      const double streamed_min = (kLayers - kLayers * pct / 100.0) * nominal_layer_bytes;
      const double bound = std::max(compute, streamed_min / (cfg.link_gbps * 1e9) * 1e3);
      std::printf(
          "| %.2f | %d%% | %d | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.2f | %.2f | "
          "%+.1f%% |\n",
          layer_ms, pct, depth, static_cast<double>(managed.streamed_bytes) / cfg.scale / 1e6, managed.stalls,
          managed.resident_ms, managed.pass_ms, bound, naive.pass_ms, planner,
          managed.resident_ms / managed.pass_ms, bound / managed.pass_ms, naive.pass_ms / managed.pass_ms,
          (planner - managed.pass_ms) / managed.pass_ms * 100);
      std::fflush(stdout);
    }
  }
  std::printf(
      "\nFirst pass after idle demotion to pinned memory (budget 100%%; the first token of a page "
      "needs one pass):\n\n| layer ms | steady pass | first pass after idle demotion |\n|---|---|---|\n");
  for (const IdleRow& r : idle_rows) {
    std::printf("| %.2f | %.2f | %.2f |\n", r.layer_ms, r.steady_ms, r.after_idle_ms);
  }
  return 0;
}

}  // namespace
}  // namespace mineru::residency

int main(int argc, char** argv) { return mineru::residency::Main(argc, argv); }
