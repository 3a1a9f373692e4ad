// The residency manager on CudaDevice: the same invariants as tests/residency on real device memory,
// plus the pinned arena and copy-stream overlap. Labelled `gpu`: skipped where this build has no CUDA
// sources or no CUDA device is present (scripts/gpu-test builds against a CUDA libtorch and runs it).
#include <gtest/gtest.h>

#include "residency/cuda_device.h"
#include "residency/residency_manager.h"
#include "tests/residency/test_model.h"

#if defined(MINERU_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace mineru::residency {
namespace {

#define MINERU_CUDA_OR_SKIP()                                                               \
  do {                                                                                      \
    if (!CudaDeviceAvailable()) GTEST_SKIP() << "no CUDA device (or a build without CUDA)"; \
  } while (0)

#if defined(MINERU_HAVE_CUDA)

// Bytes of a (possibly device) tensor, brought to the host.
bool SameAsFileOnHost(const testing::TestModel& model, const UnitSpec& unit,
                      const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> host;
  for (const at::Tensor& t : tensors) host.push_back(t.to(at::kCPU).contiguous());
  return testing::SameAsFile(model, unit, host);
}

TEST(ResidencyGpuTest, LeasesOnDeviceMemoryHoldTheFileBytes) {
  MINERU_CUDA_OR_SKIP();
  auto device = std::move(CreateCudaDevice(0)).value();
  auto model = testing::MakeTestModel(std::vector<uint64_t>(16, 1 << 20), 5);
  ASSERT_NE(model, nullptr);
  ResidencyOptions o;
  o.gpu_budget_bytes = 6 << 20;
  o.pinned_budget_bytes = 32 << 20;
  auto m = std::move(ResidencyManager::Create(device.get(), o)).value();
  ASSERT_TRUE(m->AddRegion(model->region).ok());
  std::vector<UnitId> ids;
  for (const UnitSpec& u : model->units) ids.push_back(*m->RegisterUnit(u));
  ASSERT_TRUE(m->AnnounceSchedule(ids).ok());
  for (int pass = 0; pass < 3; ++pass) {
    for (UnitId id : ids) {
      auto lease = m->Acquire(id, Tier::kGpu);
      ASSERT_TRUE(lease.ok()) << lease.status().ToString();
      EXPECT_TRUE(lease->tensor(0).is_cuda());
      ASSERT_TRUE(SameAsFileOnHost(*model, model->units[id], lease->tensors())) << "unit " << id;
      ASSERT_LE(device->MemoryStats().live_bytes[0], o.gpu_budget_bytes);
    }
  }
  ASSERT_TRUE(m->WaitForCopies().ok());
  EXPECT_LE(device->MemoryStats().peak_bytes[0], o.gpu_budget_bytes);
  EXPECT_LE(m->GetStats().tiers[0].peak_bytes, o.gpu_budget_bytes);
}

TEST(ResidencyGpuTest, PinnedArenaIsPageLockedHostMemory) {
  MINERU_CUDA_OR_SKIP();
  auto device = std::move(CreateCudaDevice(0)).value();
  auto buffer = device->Allocate(Tier::kPinned, 1 << 20);
  ASSERT_TRUE(buffer.ok());
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, buffer->data()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost);
  auto gpu = device->Allocate(Tier::kGpu, 1 << 20);
  ASSERT_TRUE(gpu.ok());
  ASSERT_EQ(cudaPointerGetAttributes(&attr, gpu->data()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeDevice);
}

TEST(ResidencyGpuTest, CopiesOverlapWithComputeOnTheDefaultStream) {
  MINERU_CUDA_OR_SKIP();
  auto device = std::move(CreateCudaDevice(0)).value();
  auto src = std::move(device->Allocate(Tier::kPinned, 8 << 20)).value();
  auto dst = std::move(device->Allocate(Tier::kGpu, 8 << 20)).value();
  // A long kernel on the compute stream, then a copy on the host->device stream: the copy finishes while
  // the kernel still runs (no timing: the kernel's stream is still busy when the copy's event is done).
  at::Tensor a = at::randn({8192, 8192}, at::TensorOptions().device(at::kCUDA));
  at::Tensor acc = a.clone();
  for (int i = 0; i < 20; ++i) acc = at::matmul(acc, a);
  auto e = device->CopyAsync({CopyQueue::kHostToDevice, dst.data(), src.data(), 8 << 20, false});
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE((*e)->Wait().ok());
  EXPECT_EQ(cudaStreamQuery(nullptr), cudaErrorNotReady) << "the copy waited for the compute stream";
  cudaDeviceSynchronize();
}

TEST(ResidencyGpuTest, KvSwapRoundTripsThroughPinnedMemory) {
  MINERU_CUDA_OR_SKIP();
  auto device = std::move(CreateCudaDevice(0)).value();
  ResidencyOptions o;
  o.gpu_budget_bytes = 64 << 20;
  o.pinned_budget_bytes = 16 << 20;
  auto m = std::move(ResidencyManager::Create(device.get(), o)).value();
  KvPoolOptions k;
  k.bytes_per_token = 12 * 1024;
  k.dtype = DType::kBF16;
  k.num_pages = 64;
  KvPagePool* pool = m->CreateKvPool(k).value();
  ASSERT_TRUE(pool->AddSequence(1).ok());
  ASSERT_TRUE(pool->AppendTokens(1, 100).ok());
  auto table = pool->PageTable(1).value();
  at::Tensor index = at::tensor(std::vector<int64_t>(table.begin(), table.end())).to(at::kCUDA);
  at::Tensor values =
      at::randn({static_cast<int64_t>(table.size()), 16, 6144}).to(at::kBFloat16).to(at::kCUDA);
  pool->storage().index_copy_(0, index, values);
  ASSERT_TRUE(pool->SwapOut(1).ok());
  pool->storage().zero_();
  ASSERT_TRUE(pool->SwapIn(1).ok());
  auto back = pool->PageTable(1).value();
  at::Tensor index2 = at::tensor(std::vector<int64_t>(back.begin(), back.end())).to(at::kCUDA);
  EXPECT_TRUE(at::equal(pool->storage().index_select(0, index2), values));
}

#else

TEST(ResidencyGpuTest, BuiltWithoutCuda) {
  MINERU_CUDA_OR_SKIP();
  FAIL() << "CudaDeviceAvailable() is true in a build without CUDA sources";
}

#endif

}  // namespace
}  // namespace mineru::residency
