#include "engine/torch_status.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

TEST(TorchStatusTest, ShapeErrorBecomesStatus) {
  Result<at::Tensor> r = CatchTorch("matmul", []() -> Result<at::Tensor> {
    return at::matmul(at::ones({2, 3}), at::ones({4, 5}));
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_EQ(r.status().message().rfind("matmul: ", 0), 0u) << r.status().message();
}

TEST(TorchStatusTest, SuccessPassesThrough) {
  Status st = CatchTorch("add", []() -> Status {
    at::Tensor t = at::ones({2}) + at::ones({2});
    return t.sum().item<float>() == 4.0f ? Status::Ok() : Internal("wrong sum");
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

}  // namespace
}  // namespace mineru::engine
