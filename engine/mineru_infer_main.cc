// mineru-infer: runs a MinerU 2.0 (or Qwen2) checkpoint on one prompt; see kInferUsage.
#include <cstdio>
#include <iostream>

#include "engine/host_allocator.h"
#include "engine/infer_options.h"
#include "engine/infer_runner.h"
#include "engine/torch_status.h"

int main(int argc, char** argv) {
  using namespace mineru::engine;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = ParseInferOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "mineru-infer: %s\n%s", options.status().message().c_str(), kInferUsage);
    return 2;
  }
  if (options->help) {
    std::fputs(kInferUsage, stdout);
    return 0;
  }
  KeepFreedHostMemoryForReuse();  // one run, then exit: keep the model's blocks for reuse
  auto result = CatchTorch("mineru-infer", [&] { return RunInfer(*options); });
  if (!result.ok()) {
    std::fprintf(stderr, "mineru-infer: %s\n", result.status().ToString().c_str());
    return 1;
  }
  std::cout << result->dump() << "\n";
  return 0;
}
