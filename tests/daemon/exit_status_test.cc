#include "daemon/exit_status.h"

#include <gtest/gtest.h>

#include <sysexits.h>

namespace mineru::daemon {
namespace {

TEST(ExitStatusTest, TheValuesAreSysexits) {
  EXPECT_EQ(kExitUsage, EX_USAGE);
  EXPECT_EQ(kExitUnavailable, EX_UNAVAILABLE);
  EXPECT_EQ(kExitSoftware, EX_SOFTWARE);
  EXPECT_EQ(kExitTempFail, EX_TEMPFAIL);
  EXPECT_EQ(kExitConfig, EX_CONFIG);
}

TEST(ExitStatusTest, ADeviceNotReadyIsTemporaryAConfigurationIsNot) {
  EXPECT_EQ(BackendFailureExitStatus(Unavailable("cudaSetDevice: all CUDA-capable devices are busy")),
            kExitTempFail);
  EXPECT_EQ(BackendFailureExitStatus(ResourceExhausted("allocating 4096 bytes of gpu memory")),
            kExitTempFail);
  EXPECT_EQ(BackendFailureExitStatus(Busy("busy")), kExitTempFail);
  for (const Status& s : {InvalidArgument("the model needs a vram_budget of at least 1G"),
                          NotFound("/m/config.json: no such file"), DataLoss("truncated safetensors header"),
                          PermissionDenied("/m/model.safetensors"), Internal("cudaMemcpyAsync")}) {
    EXPECT_EQ(BackendFailureExitStatus(s), kExitConfig) << s.ToString();
    EXPECT_FALSE(IsTemporaryStartFailure(s)) << s.ToString();
  }
}

}  // namespace
}  // namespace mineru::daemon
