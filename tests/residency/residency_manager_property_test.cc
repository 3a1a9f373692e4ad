// Property tests: random unit sizes, budgets and schedules (fixed seeds, thousands of steps). After every
// step: allocated bytes and the device's live bytes stay within the budget on kGpu and kPinned, every held
// lease still holds the file's bytes (a leased unit was never evicted or overwritten), and at the end every
// unit sits where the placement says.
#include <gtest/gtest.h>

#include <random>

#include "residency/host_device.h"
#include "residency/residency_manager.h"
#include "tests/residency/test_model.h"

namespace mineru::residency {
namespace {

using testing::MakeTestModel;
using testing::SameAsFile;

struct Held {
  UnitId id;
  Lease lease;
};

void RunSeed(uint32_t seed, int steps) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const int n = 4 + static_cast<int>(rng() % 20);
  std::vector<uint64_t> sizes;
  for (int i = 0; i < n; ++i) sizes.push_back(2000 + rng() % 120000);
  auto model = MakeTestModel(sizes, seed);
  ASSERT_NE(model, nullptr);
  uint64_t total = 0;
  uint64_t largest = 0;
  for (const UnitSpec& u : model->units) {
    total += UnitFootprintBytes(u);
    largest = std::max(largest, UnitFootprintBytes(u));
  }
  HostDevice device;
  ResidencyOptions o;
  // Room for at least two leases at once; up to more than the whole model.
  o.gpu_budget_bytes = 2 * largest + rng() % (total + 1);
  o.pinned_budget_bytes = rng() % 2 ? 0 : largest + rng() % (total + 1);
  o.prefetch_depth = 1 + static_cast<int>(rng() % 3);
  o.keep_alive_ms = 0;
  auto created = ResidencyManager::Create(&device, o);
  ASSERT_TRUE(created.ok());
  ResidencyManager& m = **created;
  ASSERT_TRUE(m.AddRegion(model->region).ok());
  std::vector<UnitId> ids;
  for (const UnitSpec& u : model->units) ids.push_back(*m.RegisterUnit(u));

  // A random cyclic schedule over a random subset, with repeats (a tied embedding used twice).
  auto random_schedule = [&] {
    std::vector<UnitId> s;
    for (UnitId id : ids) {
      if (rng() % 5 != 0) s.push_back(id);
    }
    if (s.empty()) s.push_back(ids[0]);
    if (rng() % 2) s.push_back(s.front());
    return s;
  };
  std::vector<UnitId> schedule = random_schedule();
  ASSERT_TRUE(m.AnnounceSchedule(schedule).ok());
  size_t pos = 0;
  std::vector<Held> held;
  uint64_t gpu_budget = o.gpu_budget_bytes;
  for (int step = 0; step < steps; ++step) {
    const uint32_t r = rng() % 100;
    if (r < 70) {
      // The engine's pass: the next scheduled unit, on kGpu, released before the next one mostly.
      const UnitId id = schedule[pos++ % schedule.size()];
      if (held.size() >= 2 || (rng() % 3 != 0 && !held.empty())) held.erase(held.begin());
      auto lease = m.Acquire(id, Tier::kGpu);
      uint64_t leased = 0;
      for (const Held& h : held) leased += UnitFootprintBytes(model->units[h.id]);
      if (!lease.ok()) {
        // Allowed only when the held leases leave no room for it.
        ASSERT_EQ(lease.status().code(), StatusCode::kResourceExhausted) << lease.status().ToString();
        ASSERT_GT(leased + UnitFootprintBytes(model->units[id]), gpu_budget) << lease.status().ToString();
        continue;
      }
      ASSERT_TRUE(SameAsFile(*model, model->units[id], lease->tensors())) << "unit " << id;
      held.push_back({id, std::move(lease).value()});
    } else if (r < 80) {
      // Off-schedule access, on a random tier.
      const UnitId id = ids[rng() % ids.size()];
      const Tier tier = kAllTiers[rng() % 3];
      held.clear();
      auto lease = m.Acquire(id, tier);
      if (tier == Tier::kPinned && UnitFootprintBytes(model->units[id]) > o.pinned_budget_bytes) {
        ASSERT_EQ(lease.status().code(), StatusCode::kResourceExhausted);
        continue;
      }
      ASSERT_TRUE(lease.ok()) << lease.status().ToString();
      ASSERT_TRUE(SameAsFile(*model, model->units[id], lease->tensors()));
    } else if (r < 85) {
      schedule = random_schedule();
      pos = 0;
      ASSERT_TRUE(m.AnnounceSchedule(schedule).ok());
    } else if (r < 88) {
      // A budget change at run time, never below two of the largest units (shrinking under held leases
      // is ResidencyManagerTest.BudgetShrinkMidPass...).
      held.clear();
      ASSERT_TRUE(m.WaitForCopies().ok());
      gpu_budget = 2 * largest + rng() % (total + 1);
      ASSERT_TRUE(m.SetBudget(Tier::kGpu, gpu_budget).ok());
    } else if (r < 90) {
      held.clear();
      ASSERT_TRUE(m.DemoteAll(rng() % 2 ? Tier::kPinned : Tier::kDisk).ok());
    } else {
      const UnitId id = ids[rng() % ids.size()];
      const Tier tier = rng() % 2 ? Tier::kGpu : Tier::kPinned;
      Status st = m.Prefetch(id, tier);
      if (!st.ok()) {
        // Only a unit that can never fit the tier's budget is refused.
        ASSERT_EQ(st.code(), StatusCode::kResourceExhausted) << st.ToString();
        ASSERT_EQ(tier, Tier::kPinned);
        ASSERT_GT(UnitFootprintBytes(model->units[id]), o.pinned_budget_bytes);
      }
    }
    // Invariants after every step.
    uint64_t leased = 0;
    for (const Held& h : held) {
      ASSERT_EQ(m.ResidentTier(h.id), Tier::kGpu) << "a leased unit left kGpu";
      ASSERT_TRUE(SameAsFile(*model, model->units[h.id], h.lease.tensors()))
          << "leased unit " << h.id << " changed";
      leased += UnitFootprintBytes(model->units[h.id]);
    }
    const Stats s = m.GetStats();
    const DeviceMemoryStats d = device.MemoryStats();
    ASSERT_LE(leased, gpu_budget);
    ASSERT_LE(s.tiers[0].allocated_bytes, gpu_budget) << "step " << step;
    ASSERT_LE(d.live_bytes[0], gpu_budget) << "step " << step;
    ASSERT_LE(s.tiers[1].allocated_bytes, o.pinned_budget_bytes);
  }
  held.clear();
  // Fixed budget from here: one more pass, then the placement must be what the policy says.
  ASSERT_TRUE(m.WaitForCopies().ok());
  for (int pass = 0; pass < 2; ++pass) {
    for (UnitId id : schedule) {
      auto lease = m.Acquire(id, Tier::kGpu);
      ASSERT_TRUE(lease.ok()) << lease.status().ToString();
      ASSERT_LE(m.GetStats().tiers[0].allocated_bytes, gpu_budget);
    }
  }
  ASSERT_TRUE(m.WaitForCopies().ok());
  for (UnitId id : schedule) {
    if (m.InResidentSet(id)) {
      EXPECT_EQ(m.ResidentTier(id), Tier::kGpu) << "resident-set unit " << id;
    }
  }
  int streamed_on_gpu = 0;
  for (UnitId id : ids) {
    const bool in_schedule = std::find(schedule.begin(), schedule.end(), id) != schedule.end();
    if (in_schedule && !m.InResidentSet(id) && m.ResidentTier(id) == Tier::kGpu) ++streamed_on_gpu;
  }
  EXPECT_LE(streamed_on_gpu, o.prefetch_depth) << "streamed units on kGpu beyond the slots";
  const Stats s = m.GetStats();
  EXPECT_LE(s.tiers[1].peak_bytes, o.pinned_budget_bytes);
}

TEST(ResidencyPropertyTest, RandomSchedulesBudgetsAndSizes) {
  for (uint32_t seed = 1; seed <= 12; ++seed) RunSeed(seed, 3000);
}

TEST(ResidencyPropertyTest, PeakNeverExceedsAFixedBudget) {
  // Fixed budgets, schedule-only traffic: the device's own peak counter stays within the budget.
  for (uint32_t seed = 100; seed < 108; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::vector<uint64_t> sizes(6 + rng() % 20);
    for (auto& s : sizes) s = 4000 + rng() % 90000;
    auto model = MakeTestModel(sizes, seed);
    uint64_t total = 0;
    uint64_t largest = 0;
    for (const UnitSpec& u : model->units) {
      total += UnitFootprintBytes(u);
      largest = std::max(largest, UnitFootprintBytes(u));
    }
    HostDevice device;
    ResidencyOptions o;
    o.gpu_budget_bytes = largest + rng() % total;
    o.prefetch_depth = 1 + static_cast<int>(rng() % 3);
    auto m = std::move(ResidencyManager::Create(&device, o)).value();
    ASSERT_TRUE(m->AddRegion(model->region).ok());
    std::vector<UnitId> ids;
    for (const UnitSpec& u : model->units) ids.push_back(*m->RegisterUnit(u));
    ASSERT_TRUE(m->AnnounceSchedule(ids).ok());
    for (int step = 0; step < 2000; ++step) {
      const UnitId id = ids[step % ids.size()];
      auto lease = m->Acquire(id, Tier::kGpu);
      ASSERT_TRUE(lease.ok()) << lease.status().ToString();
      ASSERT_TRUE(SameAsFile(*model, model->units[id], lease->tensors()));
    }
    ASSERT_TRUE(m->WaitForCopies().ok());
    EXPECT_LE(device.MemoryStats().peak_bytes[0], o.gpu_budget_bytes);
    EXPECT_LE(m->GetStats().tiers[0].peak_bytes, o.gpu_budget_bytes);
  }
}

}  // namespace
}  // namespace mineru::residency
