// ResidencyManager on HostDevice: leases, checksums, budgets, shrink mid-pass, idle demotion, errors.
#include "residency/residency_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "residency/host_device.h"
#include "tests/residency/test_model.h"

namespace mineru::residency {
namespace {

using testing::MakeTestModel;
using testing::SameAsFile;
using testing::TestModel;

struct Fixture {
  std::unique_ptr<TestModel> model;
  std::unique_ptr<HostDevice> device = std::make_unique<HostDevice>();
  std::unique_ptr<ResidencyManager> manager;
  std::vector<UnitId> ids;
  uint64_t footprint_total = 0;
  uint64_t largest = 0;
};

std::unique_ptr<Fixture> Make(const std::vector<uint64_t>& sizes, ResidencyOptions options,
                              uint32_t seed = 1) {
  auto f = std::make_unique<Fixture>();
  f->model = MakeTestModel(sizes, seed);
  EXPECT_NE(f->model, nullptr);
  auto m = ResidencyManager::Create(f->device.get(), options);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  f->manager = std::move(m).value();
  auto region = f->manager->AddRegion(f->model->region);
  EXPECT_TRUE(region.ok());
  for (const UnitSpec& u : f->model->units) {
    auto id = f->manager->RegisterUnit(u);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    f->ids.push_back(*id);
    f->footprint_total += UnitFootprintBytes(u);
    f->largest = std::max(f->largest, UnitFootprintBytes(u));
  }
  return f;
}

TEST(ResidencyManagerTest, LeaseTensorsHoldTheFileBytesOnEveryTier) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 4 << 20;
  o.pinned_budget_bytes = 4 << 20;
  auto f = Make({100000, 50000, 70000, 3000}, o);
  for (Tier tier : kAllTiers) {
    for (UnitId id : f->ids) {
      auto lease = f->manager->Acquire(id, tier);
      ASSERT_TRUE(lease.ok()) << lease.status().ToString();
      EXPECT_EQ(lease->tier(), tier);
      EXPECT_TRUE(SameAsFile(*f->model, f->model->units[id], lease->tensors()))
          << TierName(tier) << " unit " << id;
      const TensorSpec& t0 = f->model->units[id].tensors[0];
      EXPECT_EQ(lease->tensor(0).scalar_type(), t0.dtype == DType::kF32 ? at::kFloat : at::kBFloat16);
      EXPECT_EQ(lease->tensor(0).sizes().vec(), t0.shape);
      auto by_name = lease->Tensor(t0.name);
      ASSERT_TRUE(by_name.ok());
      EXPECT_EQ(by_name->data_ptr(), lease->tensor(0).data_ptr());
      EXPECT_EQ(lease->Tensor("no.such").status().code(), StatusCode::kNotFound);
    }
  }
  // kDisk is the mapping itself: zero copy.
  auto disk = f->manager->Acquire(f->ids[1], Tier::kDisk);
  ASSERT_TRUE(disk.ok());
  EXPECT_EQ(static_cast<const uint8_t*>(disk->tensor(0).data_ptr()),
            f->model->region.data() + f->model->units[1].tensors[0].offset_bytes);
}

TEST(ResidencyManagerTest, SecondLeaseOnAResidentUnitCopiesNothing) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 1 << 20;
  auto f = Make({100000, 50000}, o);
  auto a = f->manager->Acquire(f->ids[0], Tier::kGpu);
  ASSERT_TRUE(a.ok());
  const uint64_t promoted = f->manager->GetStats().bytes_promoted;
  a->Release();
  auto b = f->manager->Acquire(f->ids[0], Tier::kGpu);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(f->manager->GetStats().bytes_promoted, promoted);
  EXPECT_EQ(f->manager->GetStats().prefetch_hits, 1u);
}

TEST(ResidencyManagerTest, UnitLargerThanTheBudgetNamesTheBudgetNeeded) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 1 << 20;
  auto f = Make({3 << 20, 4096}, o);
  auto lease = f->manager->Acquire(f->ids[0], Tier::kGpu);
  ASSERT_FALSE(lease.ok());
  EXPECT_EQ(lease.status().code(), StatusCode::kResourceExhausted);
  const std::string need = FormatBytes(UnitFootprintBytes(f->model->units[0]));
  EXPECT_NE(lease.status().message().find("unit 'unit.0' needs " + need), std::string::npos)
      << lease.status().message();
  EXPECT_NE(lease.status().message().find("budget is 1.0 MiB"), std::string::npos)
      << lease.status().message();
  EXPECT_NE(lease.status().message().find("at least " + need), std::string::npos) << lease.status().message();
  // Workspace counts against the same budget and appears in the figure.
  auto g = Make({600000, 4096}, o, 2);
  auto ws = g->manager->ReserveWorkspace(512 << 10);
  ASSERT_TRUE(ws.ok());
  auto l2 = g->manager->Acquire(g->ids[0], Tier::kGpu);
  ASSERT_FALSE(l2.ok());
  const uint64_t want = UnitFootprintBytes(g->model->units[0]) + (512 << 10);
  EXPECT_NE(l2.status().message().find("at least " + FormatBytes(want)), std::string::npos)
      << l2.status().message();
  ws->Release();
  EXPECT_TRUE(g->manager->Acquire(g->ids[0], Tier::kGpu).ok());
}

TEST(ResidencyManagerTest, LeasedBytesBlockUntilALeaseEnds) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 200 << 10;
  auto f = Make({120000, 120000}, o);
  auto a = f->manager->Acquire(f->ids[0], Tier::kGpu);
  ASSERT_TRUE(a.ok());
  auto b = f->manager->Acquire(f->ids[1], Tier::kGpu);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(SameAsFile(*f->model, f->model->units[0], a->tensors()));
  // A waiter with a deadline gets the room when the lease ends on another thread.
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    a->Release();
  });
  AcquireOptions wait;
  wait.deadline = Deadline::InMillis(5000);
  auto c = f->manager->Acquire(f->ids[1], Tier::kGpu, wait);
  releaser.join();
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(SameAsFile(*f->model, f->model->units[1], c->tensors()));
  EXPECT_EQ(f->manager->ResidentTier(f->ids[0]), Tier::kDisk);
}

TEST(ResidencyManagerTest, BudgetShrinkMidPassFreesUnleasedAtOnceAndLeasedOnRelease) {
  ResidencyOptions o;
  const std::vector<uint64_t> sizes(10, 60000);
  auto f = Make(sizes, o);
  const uint64_t unit = UnitFootprintBytes(f->model->units[1]);
  ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, 20 * unit).ok());
  ASSERT_TRUE(f->manager->AnnounceSchedule(f->ids).ok());
  ASSERT_TRUE(f->manager->WaitForCopies().ok());
  // A pass, interrupted at unit 5 by a shrink to 3 units' worth while units 4 and 5 are leased.
  std::vector<Lease> held;
  for (int i = 0; i <= 5; ++i) {
    auto l = f->manager->Acquire(f->ids[i], Tier::kGpu);
    ASSERT_TRUE(l.ok());
    if (i >= 4) held.push_back(std::move(l).value());
  }
  EXPECT_EQ(f->manager->GetStats().tiers[0].units_resident, 10u);
  ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, 1 * unit).ok());
  ASSERT_TRUE(f->manager->WaitForCopies().ok());
  Stats s = f->manager->GetStats();
  EXPECT_EQ(s.tiers[0].allocated_bytes, 2 * unit) << "only the two leased units may stay";
  EXPECT_EQ(f->device->MemoryStats().live_bytes[0], 2 * unit);
  for (size_t i = 0; i < held.size(); ++i) {
    EXPECT_TRUE(SameAsFile(*f->model, f->model->units[4 + i], held[i].tensors()));
  }
  held.clear();
  EXPECT_LE(f->manager->GetStats().tiers[0].allocated_bytes, unit);
  // The rest of the pass runs in the new budget.
  const uint64_t peak_before = f->device->MemoryStats().peak_bytes[0];
  (void)peak_before;
  for (int i = 6; i < 10; ++i) {
    auto l = f->manager->Acquire(f->ids[i], Tier::kGpu);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    EXPECT_TRUE(SameAsFile(*f->model, f->model->units[i], l->tensors()));
    EXPECT_LE(f->manager->GetStats().tiers[0].allocated_bytes, unit);
    EXPECT_LE(f->device->MemoryStats().live_bytes[0], unit);
  }
  // Growing again lets the placement keep more.
  ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, 20 * unit).ok());
  ASSERT_TRUE(f->manager->WaitForCopies().ok());
  EXPECT_EQ(f->manager->GetStats().tiers[0].units_resident, 10u);
}

TEST(ResidencyManagerTest, ShrinkDemotesInRuleOneOrder) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 64 << 20;
  // embedding, 8 decoder layers, norm; all the same size so only the rank decides.
  auto f = Make(std::vector<uint64_t>(10, 40000), o);
  for (UnitId id : f->ids) {
    ASSERT_TRUE(f->manager->Acquire(id, Tier::kGpu).ok());
  }
  const uint64_t unit = UnitFootprintBytes(f->model->units[0]);
  ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, 4 * unit).ok());
  // Kept: embedding (0), norm (9), first and last decoder layers (units 1 and 8).
  for (UnitId id : f->ids) {
    const bool kept = id == 0 || id == 9 || id == 1 || id == 8;
    EXPECT_EQ(f->manager->ResidentTier(id) == Tier::kGpu, kept) << "unit " << id;
  }
}

TEST(ResidencyManagerTest, IdleDemotionToPinnedAndPromotionBack) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 8 << 20;
  o.pinned_budget_bytes = 8 << 20;
  o.keep_alive_ms = 50;
  auto f = Make({100000, 100000, 100000}, o);
  for (UnitId id : f->ids) {
    ASSERT_TRUE(f->manager->Acquire(id, Tier::kGpu).ok());
  }
  const MonoTime now = MonoNow();
  EXPECT_FALSE(f->manager->Tick(now));
  {
    auto held = f->manager->Acquire(f->ids[0], Tier::kGpu);
    ASSERT_TRUE(held.ok());
    EXPECT_FALSE(f->manager->Tick(now + std::chrono::seconds(1))) << "a held lease keeps the model resident";
  }
  EXPECT_TRUE(f->manager->Tick(MonoNow() + std::chrono::seconds(1)));
  for (UnitId id : f->ids) {
    EXPECT_EQ(f->manager->ResidentTier(id), Tier::kPinned);
  }
  Stats s = f->manager->GetStats();
  EXPECT_EQ(s.tiers[0].allocated_bytes, 0u);
  EXPECT_EQ(s.idle_demotions, 1u);
  EXPECT_FALSE(f->manager->Tick(MonoNow() + std::chrono::seconds(2))) << "demoted once";
  for (UnitId id : f->ids) {
    auto l = f->manager->Acquire(id, Tier::kGpu);
    ASSERT_TRUE(l.ok());
    EXPECT_TRUE(SameAsFile(*f->model, f->model->units[id], l->tensors()));
  }
  EXPECT_EQ(f->manager->ResidentTier(f->ids[2]), Tier::kGpu);
}

TEST(ResidencyManagerTest, IdleDemotionToDisk) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 8 << 20;
  o.pinned_budget_bytes = 8 << 20;
  o.keep_alive_ms = 10;
  o.idle_tier = Tier::kDisk;
  auto f = Make({100000, 100000}, o);
  for (UnitId id : f->ids) {
    ASSERT_TRUE(f->manager->Acquire(id, Tier::kGpu).ok());
  }
  EXPECT_TRUE(f->manager->Tick(MonoNow() + std::chrono::seconds(1)));
  for (UnitId id : f->ids) {
    EXPECT_EQ(f->manager->ResidentTier(id), Tier::kDisk);
  }
  EXPECT_EQ(f->manager->GetStats().tiers[1].allocated_bytes, 0u);
}

TEST(ResidencyManagerTest, PrefetchFollowsTheScheduleAndHitsWhenTheBudgetFits) {
  ResidencyOptions o;
  o.gpu_budget_bytes = 64 << 20;
  auto f = Make(std::vector<uint64_t>(12, 50000), o);
  ASSERT_TRUE(f->manager->AnnounceSchedule(f->ids).ok());
  ASSERT_TRUE(f->manager->WaitForCopies().ok());
  for (UnitId id : f->ids) {
    EXPECT_EQ(f->manager->ResidentTier(id), Tier::kGpu);
  }
  for (int pass = 0; pass < 3; ++pass) {
    for (UnitId id : f->ids) {
      ASSERT_TRUE(f->manager->Acquire(id, Tier::kGpu).ok());
    }
  }
  Stats s = f->manager->GetStats();
  EXPECT_EQ(s.prefetch_stalls, 0u);
  EXPECT_EQ(s.prefetch_hits, 36u);
  EXPECT_EQ(s.evictions, 0u);
}

TEST(ResidencyManagerTest, StreamingKeepsTheResidentSetAndStreamsTheRest) {
  ResidencyOptions o;
  o.prefetch_depth = 2;
  auto f = Make(std::vector<uint64_t>(12, 50000), o);
  const uint64_t unit = UnitFootprintBytes(f->model->units[0]);
  ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, 8 * unit).ok());
  ASSERT_TRUE(f->manager->AnnounceSchedule(f->ids).ok());
  int resident = 0;
  for (UnitId id : f->ids) resident += f->manager->InResidentSet(id);
  EXPECT_EQ(resident, 6) << "8 units of budget minus 2 streaming slots";
  const uint64_t promoted_after_warmup = [&] {
    for (UnitId id : f->ids) {
      EXPECT_TRUE(f->manager->Acquire(id, Tier::kGpu).ok());
    }
    EXPECT_TRUE(f->manager->WaitForCopies().ok());
    return f->manager->GetStats().bytes_promoted;
  }();
  for (UnitId id : f->ids) {
    auto l = f->manager->Acquire(id, Tier::kGpu);
    ASSERT_TRUE(l.ok());
    EXPECT_TRUE(SameAsFile(*f->model, f->model->units[id], l->tensors()));
    EXPECT_LE(f->manager->GetStats().tiers[0].allocated_bytes, 8 * unit);
  }
  ASSERT_TRUE(f->manager->WaitForCopies().ok());
  // One steady pass streams exactly the 6 non-resident units (some pinned staging copies aside).
  const Stats s = f->manager->GetStats();
  const uint64_t gpu_promoted = s.bytes_promoted - promoted_after_warmup;
  EXPECT_EQ(gpu_promoted, 6 * unit);
  for (UnitId id : f->ids) {
    if (f->manager->InResidentSet(id)) {
      EXPECT_EQ(f->manager->ResidentTier(id), Tier::kGpu) << id;
    }
  }
}

TEST(ResidencyManagerTest, RejectsBadArguments) {
  HostDevice device;
  ResidencyOptions o;
  o.prefetch_depth = 0;
  EXPECT_EQ(ResidencyManager::Create(&device, o).status().code(), StatusCode::kInvalidArgument);
  o.prefetch_depth = 2;
  o.pinned_budget_bytes = 2 << 20;
  o.pinned_arena_bytes = 1 << 20;
  EXPECT_EQ(ResidencyManager::Create(&device, o).status().code(), StatusCode::kInvalidArgument);
  o.pinned_arena_bytes = 0;
  auto f = Make({10000}, o);
  EXPECT_EQ(f->manager->Acquire(99, Tier::kGpu).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f->manager->AnnounceSchedule({0, 7}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f->manager->SetBudget(Tier::kDisk, 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f->manager->SetBudget(Tier::kPinned, 4 << 20).code(), StatusCode::kInvalidArgument);
  UnitSpec dup = f->model->units[0];
  EXPECT_EQ(f->manager->RegisterUnit(dup).status().code(), StatusCode::kInvalidArgument);
  UnitSpec outside = dup;
  outside.name = "outside";
  outside.tensors[0].offset_bytes = f->model->region.size() - 4;
  EXPECT_EQ(f->manager->RegisterUnit(outside).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f->manager->FindUnit("unit.0").value_or(99), 0u);
  EXPECT_EQ(f->manager->FindUnit("nope").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mineru::residency

namespace mineru::residency {
namespace {

TEST(ResidencyManagerTest, BudgetChangesAndStatsFromAnotherThreadDuringPasses) {
  ResidencyOptions o;
  o.pinned_budget_bytes = 4 << 20;
  auto f = Make(std::vector<uint64_t>(16, 60000), o, 9);
  const uint64_t unit = UnitFootprintBytes(f->model->units[1]);
  ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, 8 * unit).ok());
  ASSERT_TRUE(f->manager->AnnounceSchedule(f->ids).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> changes{0};
  std::thread controller([&] {
    std::mt19937 rng(5);
    while (!stop.load()) {
      ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, (3 + rng() % 14) * unit).ok());
      const Stats s = f->manager->GetStats();
      ASSERT_LE(s.tiers[1].allocated_bytes, o.pinned_budget_bytes);
      changes++;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  int ok = 0;
  for (int step = 0; step < 3000; ++step) {
    const UnitId id = f->ids[step % f->ids.size()];
    auto lease = f->manager->Acquire(id, Tier::kGpu);
    if (!lease.ok()) {
      ASSERT_EQ(lease.status().code(), StatusCode::kResourceExhausted) << lease.status().ToString();
      continue;
    }
    ++ok;
    ASSERT_TRUE(SameAsFile(*f->model, f->model->units[id], lease->tensors())) << "step " << step;
  }
  stop = true;
  controller.join();
  EXPECT_GT(ok, 2000);
  EXPECT_GT(changes.load(), 0);
  ASSERT_TRUE(f->manager->WaitForCopies().ok());
  ASSERT_TRUE(f->manager->SetBudget(Tier::kGpu, 4 * unit).ok());
  EXPECT_LE(f->manager->GetStats().tiers[0].allocated_bytes, 4 * unit);
  EXPECT_LE(f->device->MemoryStats().live_bytes[0], 4 * unit);
}

}  // namespace
}  // namespace mineru::residency
