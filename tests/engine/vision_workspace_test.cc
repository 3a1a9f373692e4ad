// VisionWorkspaceBytes is an upper bound of what a vision encode really allocates (measured through
// libtorch's allocator, allocation_meter.h), for several crop chunk sizes, in float32 and in bfloat16
// on the CPU (whose products widen their operands), and not loose beyond a small factor.
#include "engine/vision_workspace.h"

#include <gtest/gtest.h>

#include "engine/mineru2_model.h"
#include "tests/engine/allocation_meter.h"
#include "tests/engine/golden_support.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

TEST(VisionWorkspaceTest, BoundCoversWhatAnEncodeAllocates) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  const at::Tensor pixels = testing::GoldenPixels(shared / "golden", 5);
  for (auto [dir, dtype] : {std::pair<const char*, at::ScalarType>{"vlm-untied-f32", at::kFloat},
                            {"vlm-tied-bf16", at::kFloat},
                            {"vlm-tied-bf16", at::kBFloat16}}) {
    for (int64_t chunk : {1, 2, 8}) {
      SCOPED_TRACE(::testing::Message()
                   << dir << (dtype == at::kFloat ? " f32" : " bf16") << ", chunk " << chunk);
      ModelOptions mo;
      mo.compute_dtype = dtype;
      mo.vision_crops_per_chunk = chunk;
      auto model = Mineru2Model::Load(shared / "golden" / dir, mo);
      ASSERT_TRUE(model.ok()) << model.status().ToString();
      ASSERT_TRUE((*model)->EncodeCrops(pixels, false).ok());  // warm-up: weights materialised on first use
      const int64_t peak =
          testing::PeakAllocatedBytes([&] { ASSERT_TRUE((*model)->EncodeCrops(pixels, false).ok()); });
      const uint64_t bound = (*model)->vision()->last_workspace_bytes();
      EXPECT_GT(peak, 0);
      EXPECT_LE(static_cast<uint64_t>(peak), bound);
      // Within 8x: the loosest case is the smallest float32 one, whose peak is mostly the fused
      // attention's small buffers while the bound also counts the pixels' copy in the compute dtype
      // (not made when they are already float32 on the device).
      EXPECT_LE(bound, 8 * static_cast<uint64_t>(peak));
      std::printf("%s %s chunk %ld: allocated at most %lld bytes, bound %llu (%.2fx)\n", dir,
                  dtype == at::kFloat ? "f32" : "bf16", static_cast<long>(chunk),
                  static_cast<long long>(peak), static_cast<unsigned long long>(bound),
                  static_cast<double>(bound) / static_cast<double>(peak));
    }
  }
}

TEST(VisionWorkspaceTest, ChunksBoundTheLayerTemporariesOfAFullSizePage) {
  MultimodalConfig mm;  // MinerU 2.0's SigLIP (so400m, 384 px, patch 14) and its 896-wide projector
  mm.mm_hidden_size = 1152;
  mm.vision.hidden_size = 1152;
  mm.vision.intermediate_size = 4304;
  mm.vision.num_heads = 16;
  mm.vision.head_dim = 72;
  mm.vision.image_size = 384;
  mm.vision.patch_size = 14;
  mm.vision.patches_per_side = 27;
  VisionWorkspaceShape s;
  s.crops = 17;
  s.crops_per_chunk = 17;
  const uint64_t whole = VisionWorkspaceBytes(mm, 896, at::kBFloat16, s);
  s.crops_per_chunk = 4;
  const uint64_t chunked = VisionWorkspaceBytes(mm, 896, at::kBFloat16, s);
  EXPECT_LT(chunked, whole / 2);
  s.on_cpu = true;
  const uint64_t cpu = VisionWorkspaceBytes(mm, 896, at::kBFloat16, s);
  EXPECT_GT(cpu, chunked);
  std::printf("17 crops in bf16: %.0f MiB all at once, %.0f MiB in chunks of 4 (%.0f MiB on the CPU)\n",
              whole / 1048576.0, chunked / 1048576.0, cpu / 1048576.0);
}

}  // namespace
}  // namespace mineru::engine
