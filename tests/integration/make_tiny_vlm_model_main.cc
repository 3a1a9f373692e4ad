// make_tiny_vlm_model GOLDEN_MODEL_DIR OUT_DIR: writes the test model folder of tiny_vlm_model.h, for
// the shell-script tests (the service filter check runs the model backend with it).
#include <cstdio>

#include "tests/integration/tiny_vlm_model.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: make_tiny_vlm_model GOLDEN_MODEL_DIR OUT_DIR\n", stderr);
    return 64;
  }
  const std::string error = mineru::testing::MakeTinyVlmModel(argv[1], argv[2]);
  if (!error.empty()) {
    std::fprintf(stderr, "make_tiny_vlm_model: %s\n", error.c_str());
    return 1;
  }
  return 0;
}
