#include "residency/planner.h"

#include <gtest/gtest.h>

namespace mineru::residency {
namespace {

// The real decoder's shape: 24 layers of 29.8 MB and a 272 MB tied embedding used first and last.
PlanRequest DecoderRequest(double layer_ms, uint64_t budget) {
  PlanRequest r;
  r.units.push_back({"embedding", UnitKind::kEmbedding, 0, 272'000'000, 0.0, 0.0});
  for (int i = 0; i < 24; ++i) {
    r.units.push_back(
        {"decoder." + std::to_string(i), UnitKind::kDecoderLayer, i, 29'800'000, layer_ms, 0.0});
  }
  r.gpu_budget_bytes = budget;
  r.pinned_budget_bytes = 4'000'000'000;
  r.probe.h2d_gbps = 25;
  r.prefetch_depth = 2;
  return r;
}

TEST(PlannerTest, EverythingResidentWhenTheBudgetHoldsTheModel) {
  auto plan = PlanForBatch(DecoderRequest(1.0, 2'000'000'000), 1);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->streamed_bytes, 0u);
  EXPECT_EQ(plan->slot_bytes, 0u);
  EXPECT_DOUBLE_EQ(plan->pass_ms, 24.0);
  for (const UnitPlacement& p : plan->placements) {
    EXPECT_EQ(p.tier, Tier::kGpu);
  }
}

TEST(PlannerTest, KeepsTheEmbeddingAndOuterLayersAndStreamsMiddleLayers) {
  // Embedding + 10 layers' worth.
  auto plan = PlanForBatch(DecoderRequest(1.0, 272'000'000 + 10 * 29'800'000), 1);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->placements[0].tier, Tier::kGpu) << "embedding";
  EXPECT_EQ(plan->placements[1].tier, Tier::kGpu) << "first layer";
  EXPECT_EQ(plan->placements[24].tier, Tier::kGpu) << "last layer";
  int resident_layers = 0;
  for (int i = 1; i <= 24; ++i) resident_layers += plan->placements[i].tier == Tier::kGpu;
  EXPECT_EQ(resident_layers, 8) << "10 layers of room minus 2 streaming slots";
  EXPECT_EQ(plan->streamed_bytes, 16u * 29'800'000);
  EXPECT_EQ(plan->slot_bytes, 2u * 29'800'000);
}

TEST(PlannerTest, LinkBoundPassApproachesStreamedBytesOverTheLink) {
  auto plan = PlanForBatch(DecoderRequest(0.01, 272'000'000 + 8 * 29'800'000), 1);
  ASSERT_TRUE(plan.ok());
  const double link_ms = static_cast<double>(plan->streamed_bytes) / 25e9 * 1e3;
  EXPECT_NEAR(plan->copy_ms, link_ms, 1e-9);
  EXPECT_GE(plan->pass_ms, link_ms * (1 - 1e-9));
  EXPECT_LE(plan->pass_ms, link_ms * 1.05 + 0.5);
}

TEST(PlannerTest, ComputeBoundPassHidesTheCopies) {
  auto plan = PlanForBatch(DecoderRequest(5.0, 272'000'000 + 12 * 29'800'000), 1);
  ASSERT_TRUE(plan.ok());
  EXPECT_GT(plan->copy_ms, 0);
  EXPECT_NEAR(plan->pass_ms, plan->compute_ms, 1e-6) << "each copy (1.2 ms) hides under a 5 ms layer";
}

TEST(PlannerTest, SyncLikeDepthOneSerialisesCopyAndCompute) {
  // With one slot, a streamed unit's copy can only start after the previous streamed unit computed.
  std::vector<PlanUnit> units = {{"a", UnitKind::kDecoderLayer, 0, 1000, 1.0, 0},
                                 {"b", UnitKind::kDecoderLayer, 1, 1000, 1.0, 0}};
  const double t = SimulatePassMs(units, {false, false}, {2.0, 2.0}, 1, 1);
  EXPECT_DOUBLE_EQ(t, 6.0);  // copy a 2, compute a 1, copy b 2, compute b 1
  const double t2 = SimulatePassMs(units, {false, false}, {2.0, 2.0}, 1, 2);
  EXPECT_DOUBLE_EQ(t2, 4.0);  // link-bound: 2 copies per pass
}

TEST(PlannerTest, BatchSizeIsChosenForThroughputWithinTheBudget) {
  PlanRequest r = DecoderRequest(0.0, 272'000'000 + 24 * 29'800'000 + 64 * 100'000'000ull);
  for (PlanUnit& u : r.units) u.compute_ms_per_seq = 0.05;
  for (PlanUnit& u : r.units) u.compute_ms_fixed = 0.5;
  r.kv_bytes_per_seq = 100'000'000;
  r.max_batch = 64;
  auto plan = MakePlan(r);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->batch_size, 64) << "fixed cost per pass favours the largest batch that fits";
  r.max_batch = 200;
  auto capped = MakePlan(r);
  ASSERT_TRUE(capped.ok());
  EXPECT_LE(capped->kv_bytes + capped->workspace_bytes + 29'800'000, r.gpu_budget_bytes);
}

TEST(PlannerTest, TooSmallABudgetNamesTheBudgetNeeded) {
  auto plan = PlanForBatch(DecoderRequest(1.0, 100'000'000), 1);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(plan.status().message().find("at least 259.4 MiB"), std::string::npos) << plan.status().message();
}

TEST(PlannerTest, ChoosesThePrefetchDepthThatPredictsTheShortestPass) {
  PlanRequest r = DecoderRequest(0.1, 272'000'000 + 18 * 29'800'000);
  r.prefetch_depth = 0;
  auto best = PlanForBatch(r, 1);
  ASSERT_TRUE(best.ok());
  for (int d = 1; d <= kMaxPrefetchDepth; ++d) {
    r.prefetch_depth = d;
    auto p = PlanForBatch(r, 1);
    ASSERT_TRUE(p.ok());
    EXPECT_LE(best->pass_ms, p->pass_ms + 1e-9) << "depth " << d;
  }
  // Spread-out streamed layers overlap with one slot; the slot saved stays resident.
  EXPECT_EQ(best->prefetch_depth, 1);
}

TEST(PlannerTest, FormatPlanPrintsTheTableAndPrediction) {
  PlanRequest r = DecoderRequest(1.0, 272'000'000 + 10 * 29'800'000);
  auto plan = PlanForBatch(r, 1);
  ASSERT_TRUE(plan.ok());
  const std::string text = FormatPlan(*plan, r);
  EXPECT_NE(text.find("decoder.12"), std::string::npos);
  EXPECT_NE(text.find("streamed from pinned"), std::string::npos);
  EXPECT_NE(text.find("predicted pass"), std::string::npos);
}

}  // namespace
}  // namespace mineru::residency
