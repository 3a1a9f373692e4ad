#include "tests/residency/test_model.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

namespace mineru::residency::testing {

TestModel::~TestModel() {
  region.Reset();
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

std::unique_ptr<TestModel> MakeTestModel(const std::vector<uint64_t>& unit_bytes, uint32_t seed) {
  auto model = std::make_unique<TestModel>();
  std::mt19937_64 rng(seed);
  std::string tmpl = (std::filesystem::temp_directory_path() / "minerud-residency-XXXXXX").string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return nullptr;
  model->path = tmpl;
  uint64_t offset = 64;  // a pretend header
  const int n = static_cast<int>(unit_bytes.size());
  for (int i = 0; i < n; ++i) {
    UnitSpec unit;
    unit.name = "unit." + std::to_string(i);
    unit.kind = i == 0 ? UnitKind::kEmbedding : (i == n - 1 ? UnitKind::kNorm : UnitKind::kDecoderLayer);
    unit.index = i == 0 || i == n - 1 ? 0 : i - 1;
    const int parts = 1 + static_cast<int>(rng() % 3);
    uint64_t left = std::max<uint64_t>(unit_bytes[i], 64);
    for (int p = 0; p < parts; ++p) {
      TensorSpec t;
      t.name = "t" + std::to_string(p);
      t.dtype = rng() % 2 ? DType::kF32 : DType::kBF16;
      const uint64_t elem = DTypeSizeBytes(t.dtype);
      uint64_t bytes = p == parts - 1 ? left : left / 2;
      const int64_t cols = 8;
      int64_t rows = static_cast<int64_t>(std::max<uint64_t>(bytes / (elem * cols), 1));
      t.shape = {rows, cols};
      t.size_bytes = static_cast<uint64_t>(rows * cols) * elem;
      t.offset_bytes = offset;
      offset += t.size_bytes + (rng() % 3) * 8;  // safetensors packs tensors; a little slack is allowed
      left = left > t.size_bytes ? left - t.size_bytes : 64;
      unit.tensors.push_back(std::move(t));
    }
    model->units.push_back(std::move(unit));
  }
  std::vector<uint8_t> bytes(offset);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = write(fd, bytes.data() + done, bytes.size() - done);
    if (w <= 0) {
      close(fd);
      return nullptr;
    }
    done += static_cast<size_t>(w);
  }
  close(fd);
  auto region = MappedRegion::MapFile(model->path.c_str());
  if (!region.ok()) return nullptr;
  model->region = std::move(region).value();
  return model;
}

bool SameAsFile(const TestModel& model, const UnitSpec& unit, const std::vector<at::Tensor>& tensors) {
  if (tensors.size() != unit.tensors.size()) return false;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorSpec& t = unit.tensors[i];
    const at::Tensor& x = tensors[i];
    if (static_cast<uint64_t>(x.nbytes()) != t.size_bytes || !x.is_contiguous()) return false;
    if (std::memcmp(x.data_ptr(), model.region.data() + t.offset_bytes, t.size_bytes) != 0) return false;
  }
  return true;
}

}  // namespace mineru::residency::testing
