// The vision tower on the CPU: a crop's features (SigLIP output and projector output) are the same bits
// encoded alone or with other crops, in bfloat16 and float32 (the products, the patch embedding and the
// GELUs are row-invariant; attention never mixes crops).
#include "engine/vision_tower.h"

#include <gtest/gtest.h>

#include "engine/mineru2_model.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

void CheckCropsAloneAndTogether(const std::filesystem::path& dir, at::ScalarType dtype,
                                const at::Tensor& pixels) {
  ModelOptions o;
  o.compute_dtype = dtype;
  auto model = Mineru2Model::Load(dir, o);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto all = (*model)->EncodeCrops(pixels, /*keep_siglip=*/true);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  for (int64_t i = 0; i < pixels.size(0); ++i) {
    auto one = (*model)->EncodeCrops(pixels.narrow(0, i, 1), true);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    EXPECT_TRUE(at::equal(one->siglip, all->siglip.narrow(0, i, 1))) << dir.filename() << " crop " << i;
    EXPECT_TRUE(at::equal(one->projected, all->projected.narrow(0, i, 1))) << dir.filename() << " crop " << i;
  }
}

TEST(VisionTower, ACropsFeaturesDoNotDependOnTheCropsEncodedWithIt) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const auto golden = shared / "golden";
  const at::Tensor pixels = testing::GoldenPixels(golden, 5);
  CheckCropsAloneAndTogether(golden / "vlm-tied-bf16", at::kBFloat16, pixels);
  CheckCropsAloneAndTogether(golden / "vlm-untied-f32", at::kFloat, pixels);
}

}  // namespace
}  // namespace mineru::engine
