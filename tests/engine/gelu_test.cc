// Gelu (engine/gelu.h): libtorch's values, computed row by row, so a row's result is the same bits
// alone and among many rows (a width with a tail past the vector width, and enough rows that libtorch
// alone would split the tensor over the threads inside a row).
#include "engine/gelu.h"

#include <gtest/gtest.h>

namespace mineru::engine {
namespace {

TEST(Gelu, IsLibtorchsGeluAndARowDoesNotDependOnTheOtherRows) {
  at::manual_seed(3);
  for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    for (const char* approximate : {"none", "tanh"}) {
      const at::Tensor x = (at::randn({2, 150, 131}) * 3).to(dtype);
      const at::Tensor all = Gelu(x, approximate);
      ASSERT_EQ(all.sizes(), x.sizes());
      EXPECT_TRUE(at::allclose(all.to(at::kFloat), at::gelu(x, approximate).to(at::kFloat), 1e-2, 1e-5));
      for (int64_t r : {0, 1, 75, 149}) {
        EXPECT_TRUE(at::equal(all[1][r], at::gelu(x[1][r], approximate)))
            << "row " << r << ", " << dtype << ", " << approximate;
      }
    }
  }
}

}  // namespace
}  // namespace mineru::engine
