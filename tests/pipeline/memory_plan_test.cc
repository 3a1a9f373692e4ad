// The memory plan's placement is the residency manager's. For budgets of 100 %, 50 % and 15 % of the
// weights + KV pool and for the plan's minimum, the units the planner keeps on kGpu for
// PlacementRequest(plan) — what `minerud plan` prints — are the units the manager keeps in its resident
// set when the model is loaded as ModelBackend loads it (ResidencyOptionsFor(plan), the plan's KV pool)
// and the plan's largest forward holds its workspace. Models: the full-size architecture
// (examples/mineru2-0.9b-config: tied head, 24 decoder and 26 vision layers) over a checkpoint image of
// the right layout whose weights are never read, and the golden tiny models (tied bf16, untied f32),
// loaded from their folders. On the golden models one pass then streams every unit: a unit the plan
// streams from pinned memory has a pinned copy and one it streams from disk has none. The default pinned
// budget holds every weight and the whole KV pool swapped out.
#include "pipeline/memory_plan.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "common/clock.h"
#include "common/mapped_region.h"
#include "engine/mineru2_model.h"
#include "engine/residency_weight_source.h"
#include "engine/safetensors_file.h"
#include "engine/safetensors_header.h"
#include "engine/workspace_reservation.h"
#include "residency/host_device.h"
#include "tests/support/shared_data.h"

namespace mineru::pipeline {
namespace {

constexpr int64_t kPromptTokens = 40;

// A checkpoint image with `config`'s tensors laid out in unit order over zero pages: the manager
// registers and sizes its units like a real one's, and nothing touches the pages unless a unit loads.
std::shared_ptr<const engine::Checkpoint> LayoutOnlyCheckpoint(const engine::ModelConfig& config) {
  const std::vector<engine::UnitInfo> units =
      engine::UnitsFromConfig(config, engine::StorageDtype::kBF16, config.text.tie_word_embeddings);
  std::vector<engine::TensorEntry> entries;
  uint64_t data_bytes = 0;
  for (const engine::UnitInfo& u : units) {
    for (const engine::UnitTensor& t : u.tensors) {
      entries.push_back({t.name, t.dtype, t.shape, 0, t.size_bytes});
      data_bytes += t.size_bytes;
    }
  }
  const std::string header = engine::SerializeSafetensorsHeader(entries);
  auto region = MappedRegion::Anonymous(header.size() + data_bytes);
  EXPECT_TRUE(region.ok()) << region.status().ToString();
  std::memcpy(region->data(), header.data(), header.size());
  auto file = engine::SafetensorsFile::FromRegion("layout.safetensors", std::move(*region));
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  std::vector<engine::SafetensorsFile> files;
  files.push_back(std::move(*file));
  auto checkpoint = engine::Checkpoint::FromFiles("(layout only)", std::move(files));
  EXPECT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
  return std::make_shared<const engine::Checkpoint>(std::move(*checkpoint));
}

// A model loaded the way ModelBackend loads it, from a folder (`dir`) or a checkpoint image.
class LoadedModel {
 public:
  LoadedModel(const engine::ModelConfig& mc, const std::filesystem::path& dir,
              std::shared_ptr<const engine::Checkpoint> checkpoint,
              const std::vector<engine::UnitInfo>& units, const ModelMemoryPlan& plan, const Config& config,
              bool prefetch) {
    residency::ResidencyOptions ro = ResidencyOptionsFor(plan, config);
    ro.prefetch = prefetch;  // copies only: the placement does not depend on it
    auto manager = residency::ResidencyManager::Create(&device_, ro);
    EXPECT_TRUE(manager.ok()) << manager.status().ToString();
    if (!manager.ok()) return;
    manager_ = std::move(*manager);
    engine::ModelOptions mo;
    mo.compute_dtype = plan.compute_dtype;
    mo.kv_page_tokens = config.kv_page_tokens;
    mo.kv_capacity_tokens = plan.kv_tokens;
    mo.residency = manager_.get();
    Result<std::unique_ptr<engine::Mineru2Model>> model = InvalidArgument("no model");
    if (checkpoint) {
      auto source =
          engine::ResidencyWeightSource::Create(checkpoint, units, manager_.get(), plan.compute_dtype);
      EXPECT_TRUE(source.ok()) << source.status().ToString();
      if (!source.ok()) return;
      model = engine::Mineru2Model::FromSource(mc, std::move(*source), mo);
    } else {
      model = engine::Mineru2Model::Load(dir, mo);
    }
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    if (model.ok()) model_ = std::move(*model);
  }
  ~LoadedModel() {
    model_.reset();
    manager_.reset();
  }
  bool ok() const { return model_ != nullptr; }
  residency::ResidencyManager& manager() { return *manager_; }

 private:
  residency::HostDevice device_;
  std::unique_ptr<residency::ResidencyManager> manager_;
  std::unique_ptr<engine::Mineru2Model> model_;
};

Config PlanConfig(uint64_t vram_budget_bytes) {
  Config config;
  config.vram_budget_bytes = vram_budget_bytes;
  config.max_batch = 4;
  config.prefill_chunk_tokens = 512;
  return config;
}

ModelMemoryPlan MakePlan(const engine::ModelConfig& mc, const std::vector<engine::UnitInfo>& units,
                         at::ScalarType dtype, const Config& config) {
  auto plan = PlanModelMemory(mc, units, dtype, /*on_cpu=*/true, config, kPromptTokens);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : ModelMemoryPlan{};
}

// The budgets to check: shares of the weights + the KV pool of an unlimited budget, and the least
// budget that can run a page (the KV pool, sized from the budget, shrinks with it: iterate).
std::vector<uint64_t> Budgets(const engine::ModelConfig& mc, const std::vector<engine::UnitInfo>& units,
                              at::ScalarType dtype) {
  const ModelMemoryPlan all = MakePlan(mc, units, dtype, PlanConfig(0));
  const uint64_t full = all.weight_bytes + all.kv_bytes;
  // From below: a one-byte budget gets the smallest pool (one page), so the least minimum.
  uint64_t minimum = MakePlan(mc, units, dtype, PlanConfig(1)).min_budget_bytes;
  for (int i = 0; i < 8; ++i) {
    const ModelMemoryPlan p = MakePlan(mc, units, dtype, PlanConfig(minimum));
    if (CheckBudget(minimum, p).ok()) break;
    minimum = p.min_budget_bytes;
  }
  std::vector<uint64_t> budgets;
  for (double share : {1.0, 0.5, 0.15}) {
    budgets.push_back(std::max(minimum, static_cast<uint64_t>(static_cast<double>(full) * share)));
  }
  budgets.push_back(minimum);
  return budgets;
}

// Checks the plan's kGpu set against the manager's while the largest forward's workspace is held (the
// caller holds it). Returns the planner's placement.
residency::Plan ExpectSamePlacement(LoadedModel& loaded, const ModelMemoryPlan& plan,
                                    const std::vector<engine::UnitInfo>& units, const Config& config) {
  const residency::PlanRequest request = PlacementRequest(plan, units, ResidencyOptionsFor(plan, config));
  auto planned = residency::MakePlan(request);
  EXPECT_TRUE(planned.ok()) << planned.status().ToString();
  if (!planned.ok()) return {};
  residency::ResidencyManager& manager = loaded.manager();
  EXPECT_EQ(manager.GetStats().tiers[0].workspace_bytes, plan.workspace_bytes);
  EXPECT_EQ(manager.GetStats().tiers[0].kv_bytes, plan.kv_bytes);
  size_t resident = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    auto id = manager.FindUnit(units[i].name);
    EXPECT_TRUE(id.ok()) << units[i].name;
    if (!id.ok()) continue;
    const bool planned_gpu = planned->placements[i].tier == residency::Tier::kGpu;
    EXPECT_EQ(manager.InResidentSet(*id), planned_gpu) << units[i].name;
    EXPECT_EQ(manager.unit(*id).kind, request.units[i].kind) << units[i].name;
    resident += planned_gpu ? 1 : 0;
  }
  if (plan.gpu_budget_bytes >= plan.weight_bytes + plan.kv_bytes + plan.workspace_bytes) {
    EXPECT_EQ(resident, units.size());
  }
  return std::move(*planned);
}

TEST(MemoryPlanTest, FullSizePlacementIsTheManagers) {
  const auto dir = mineru::testing::SourceDir() / "examples" / "mineru2-0.9b-config";
  auto mc = engine::ModelConfig::Load(dir);
  ASSERT_TRUE(mc.ok()) << mc.status().ToString();
  const std::shared_ptr<const engine::Checkpoint> checkpoint = LayoutOnlyCheckpoint(*mc);
  auto units = engine::ListModelUnits(*checkpoint, *mc);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  // The tied head holds only the final norm: the planner and the manager both rank it as one.
  EXPECT_EQ(engine::ResidencyUnitKind(units->back()), residency::UnitKind::kNorm);
  std::set<size_t> resident_counts;
  for (uint64_t budget : Budgets(*mc, *units, at::kBFloat16)) {
    SCOPED_TRACE(budget);
    const Config config = PlanConfig(budget);
    const ModelMemoryPlan plan = MakePlan(*mc, *units, at::kBFloat16, config);
    ASSERT_TRUE(CheckBudget(budget, plan).ok());
    // Without prefetching: no unit loads, so the 2 GB of weights are never copied.
    LoadedModel loaded(*mc, dir, checkpoint, *units, plan, config, /*prefetch=*/false);
    ASSERT_TRUE(loaded.ok());
    auto workspace = engine::ReserveActivations(&loaded.manager(), plan.workspace_bytes, "largest forward");
    ASSERT_TRUE(workspace.ok()) << workspace.status().ToString();
    const residency::Plan placed = ExpectSamePlacement(loaded, plan, *units, config);
    size_t n = 0;
    for (const auto& p : placed.placements) n += p.tier == residency::Tier::kGpu ? 1 : 0;
    resident_counts.insert(n);
  }
  // The budgets do place differently (the test compares more than "everything resident").
  EXPECT_GE(resident_counts.size(), 3u);
}

TEST(MemoryPlanTest, GoldenModelPlacementAndStreamingTiersAreTheManagers) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  for (const char* name : {"vlm-tied-bf16", "vlm-untied-f32"}) {
    SCOPED_TRACE(name);
    const auto dir = shared / "golden" / name;
    auto mc = engine::ModelConfig::Load(dir);
    ASSERT_TRUE(mc.ok()) << mc.status().ToString();
    auto checkpoint = engine::Checkpoint::Open(dir);
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
    auto units = engine::ListModelUnits(*checkpoint, *mc);
    ASSERT_TRUE(units.ok()) << units.status().ToString();
    auto dtype = ResolveComputeDtype("auto", *checkpoint);
    ASSERT_TRUE(dtype.ok());
    const bool tied = engine::CheckpointIsTied(*checkpoint);
    EXPECT_EQ(engine::ResidencyUnitKind(units->back()),
              tied ? residency::UnitKind::kNorm : residency::UnitKind::kLmHead);
    for (uint64_t budget : Budgets(*mc, *units, *dtype)) {
      // The default pinned budget (every weight) and one too small for any unit.
      for (uint64_t pinned : {uint64_t{0}, residency::kBufferAlignBytes}) {
        SCOPED_TRACE(std::to_string(budget) + " pinned " + std::to_string(pinned));
        Config config = PlanConfig(budget);
        config.pinned_budget_bytes = pinned;
        const ModelMemoryPlan plan = MakePlan(*mc, *units, *dtype, config);
        LoadedModel loaded(*mc, dir, nullptr, *units, plan, config, /*prefetch=*/true);
        ASSERT_TRUE(loaded.ok());
        // As a forward reserves it: prefetches in flight may hold room until they land.
        auto workspace =
            engine::ReserveActivations(&loaded.manager(), plan.workspace_bytes, "largest forward");
        ASSERT_TRUE(workspace.ok()) << workspace.status().ToString();
        const residency::Plan placed = ExpectSamePlacement(loaded, plan, *units, config);
        ASSERT_EQ(placed.placements.size(), units->size());
        // One pass in schedule order, with the workspace still held.
        residency::ResidencyManager& manager = loaded.manager();
        residency::AcquireOptions wait;
        wait.deadline = Deadline::InMillis(30'000);
        for (residency::UnitId id = 0; id < manager.num_units(); ++id) {
          auto lease = manager.Acquire(id, residency::Tier::kGpu, wait);
          ASSERT_TRUE(lease.ok()) << lease.status().ToString();
        }
        ASSERT_TRUE(manager.WaitForCopies().ok());
        for (size_t i = 0; i < units->size(); ++i) {
          const residency::Tier planned = placed.placements[i].tier;
          const residency::Tier held = manager.ResidentTier(*manager.FindUnit((*units)[i].name));
          if (planned == residency::Tier::kPinned) {
            EXPECT_NE(held, residency::Tier::kDisk) << (*units)[i].name;
          } else if (planned == residency::Tier::kDisk) {
            EXPECT_NE(held, residency::Tier::kPinned) << (*units)[i].name;
          }
        }
      }
    }
  }
}

// The default pinned budget holds a staged copy of every weight and the whole KV pool swapped out:
// swapping out a sequence that fills the pool keeps every pinned weight. With preemption = recompute
// the budget is the weights alone, and swapping out even one page pushes weights out (what the default
// avoids).
TEST(MemoryPlanTest, DefaultPinnedBudgetHoldsEveryWeightAndTheKvPoolSwappedOut) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto dir = shared / "golden" / "vlm-untied-f32";
  auto mc = engine::ModelConfig::Load(dir);
  ASSERT_TRUE(mc.ok()) << mc.status().ToString();
  auto checkpoint = engine::Checkpoint::Open(dir);
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
  auto units = engine::ListModelUnits(*checkpoint, *mc);
  ASSERT_TRUE(units.ok()) << units.status().ToString();
  for (const char* preemption : {"swap", "recompute"}) {
    SCOPED_TRACE(preemption);
    Config config = PlanConfig(0);
    config.preemption = preemption;
    const ModelMemoryPlan plan = MakePlan(*mc, *units, at::kFloat, config);
    EXPECT_EQ(plan.pinned_budget_bytes,
              plan.weight_bytes + (config.preemption == "swap" ? plan.kv_bytes : uint64_t{0}));
    LoadedModel loaded(*mc, dir, nullptr, *units, plan, config, /*prefetch=*/true);
    ASSERT_TRUE(loaded.ok());
    residency::ResidencyManager& manager = loaded.manager();
    // One pass stages every unit in the pinned arena on its way to kGpu.
    for (residency::UnitId id = 0; id < manager.num_units(); ++id) {
      residency::AcquireOptions wait;
      wait.deadline = Deadline::InMillis(30'000);
      ASSERT_TRUE(manager.Acquire(id, residency::Tier::kGpu, wait).ok());
    }
    ASSERT_TRUE(manager.WaitForCopies().ok());
    const uint64_t staged = manager.GetStats().tiers[1].weight_bytes;
    EXPECT_EQ(staged, plan.weight_bytes);
    // A sequence swapped out.
    residency::KvPagePool* pool = manager.kv_pool();
    ASSERT_NE(pool, nullptr);
    const residency::KvStats kv = manager.GetStats().kv;
    constexpr residency::SequenceId kSeq = uint64_t{1} << 40;
    ASSERT_TRUE(pool->AddSequence(kSeq).ok());
    // The whole pool; with the weights-only budget one page, which fits only where weights were.
    const uint64_t pages = config.preemption == "swap" ? kv.pages_free : 1;
    ASSERT_TRUE(pool->AppendTokens(kSeq, pages * kv.page_size_tokens).ok());
    const Status swapped = pool->SwapOut(kSeq);
    ASSERT_TRUE(swapped.ok()) << swapped.ToString();
    ASSERT_TRUE(manager.WaitForCopies().ok());
    const residency::TierStats pinned = manager.GetStats().tiers[1];
    EXPECT_GT(pinned.kv_bytes, 0u);
    if (config.preemption == "swap") {
      EXPECT_EQ(pinned.weight_bytes, staged);
    } else {
      EXPECT_LT(pinned.weight_bytes, staged);
    }
    ASSERT_TRUE(pool->FreeSequence(kSeq).ok());
  }
}

}  // namespace
}  // namespace mineru::pipeline
