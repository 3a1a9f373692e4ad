#include "residency/link_probe.h"

#include <gtest/gtest.h>

#include "residency/host_device.h"

namespace mineru::residency {
namespace {

TEST(LinkProbeTest, MeasuresEveryDirectionAndFreesItsBuffers) {
  HostDevice device;
  auto probe = MeasureLinkProbe(device, {4 << 20, 2});
  ASSERT_TRUE(probe.ok()) << probe.status().ToString();
  EXPECT_GT(probe->h2d_gbps, 0);
  EXPECT_GT(probe->h2d_pageable_gbps, 0);
  EXPECT_GT(probe->disk_gbps, 0);
  EXPECT_EQ(device.MemoryStats().live_bytes[0], 0u);
  EXPECT_EQ(device.MemoryStats().live_bytes[1], 0u);
  EXPECT_EQ(MeasureLinkProbe(device, {0, 1}).status().code(), StatusCode::kInvalidArgument);
}

TEST(LinkProbeTest, PlanTextIsThePlannersTableOrItsError) {
  PlanRequest r;
  r.units = {{"embedding", UnitKind::kEmbedding, 0, 1000, 0.1, 0},
             {"decoder.0", UnitKind::kDecoderLayer, 0, 500, 1, 0}};
  r.gpu_budget_bytes = 1200;
  r.prefetch_depth = 1;
  auto text = PlanText(r);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("decoder.0"), std::string::npos);
  EXPECT_NE(text->find("streamed from"), std::string::npos) << *text;
  r.gpu_budget_bytes = 900;
  EXPECT_EQ(PlanText(r).status().code(), StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace mineru::residency
