#include "tests/engine/golden_support.h"

#include <gtest/gtest.h>

#include <fstream>

#include "engine/safetensors_file.h"

namespace mineru::engine::testing {

nlohmann::json LoadGoldenJson(const std::filesystem::path& golden, const std::string& relative) {
  std::ifstream in(golden / relative);
  if (!in) {
    ADD_FAILURE() << "cannot open " << (golden / relative);
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(in);
}

at::Tensor LoadGoldenTensor(const std::filesystem::path& golden, const std::string& file,
                            const std::string& name) {
  auto f = SafetensorsFile::Open((golden / file).string());
  if (!f.ok()) {
    ADD_FAILURE() << f.status().ToString();
    return at::Tensor();
  }
  const TensorEntry* e = f->Find(name);
  if (!e) {
    ADD_FAILURE() << "no tensor " << name << " in " << file;
    return at::Tensor();
  }
  at::Tensor view = *f->View(*e);
  return view.is_floating_point() ? view.to(at::kFloat, false, /*copy=*/true)
                                  : view.to(at::kLong, false, true);
}

at::Tensor LoadGoldenTensor(const std::filesystem::path& golden, const nlohmann::json& ref) {
  return LoadGoldenTensor(golden, ref.at("file").get<std::string>(), ref.at("tensor").get<std::string>());
}

std::vector<int64_t> IntList(const nlohmann::json& j) { return j.get<std::vector<int64_t>>(); }

double MaxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  if (a.sizes() != b.sizes()) return 1e30;
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

at::Tensor GoldenPixels(const std::filesystem::path& golden, int64_t count) {
  at::Tensor pool = LoadGoldenTensor(golden, "pixels/pool.safetensors", "pixel_values");
  return pool.narrow(0, 0, count).contiguous();
}

}  // namespace mineru::engine::testing
