// generated_model: writes a model folder of random weights with MinerU 2.0's full-size architecture
// (engine/dummy_model_folder.h), for the benchmarks that run minerud, mineru-infer or the page scheduler
// end to end at the real sizes without downloading the model (about 1.8 GB in bf16).
//
// usage: generated_model OUT_DIR [--config DIR] [--dtype bf16|f32] [--seed S]
//   --config: a config folder (config.json, the vision sub-folder); examples/mineru2-0.9b-config by default
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/clock.h"
#include "engine/dummy_model_folder.h"

int main(int argc, char** argv) {
  using namespace mineru;
  std::string out, config = MINERU_SOURCE_DIR "/examples/mineru2-0.9b-config", dtype = "bf16";
  uint64_t seed = 1234;
  bool ok = argc >= 2;
  for (int i = 1; ok && i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--config" && has_value) {
      config = argv[++i];
    } else if (a == "--dtype" && has_value) {
      dtype = argv[++i];
    } else if (a == "--seed" && has_value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (out.empty() && a.rfind("--", 0) != 0) {
      out = a;
    } else {
      ok = false;
    }
  }
  if (!ok || out.empty() || (dtype != "bf16" && dtype != "f32")) {
    std::fputs("usage: generated_model OUT_DIR [--config DIR] [--dtype bf16|f32] [--seed S]\n", stderr);
    return 64;
  }
  Stopwatch clock;
  const Status st = engine::WriteDummyModelFolder(
      config, out, dtype == "f32" ? engine::StorageDtype::kF32 : engine::StorageDtype::kBF16, seed);
  if (!st.ok()) {
    std::fprintf(stderr, "generated_model: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("generated_model: %s (%s, seed %lu) in %.1f s\n", out.c_str(), dtype.c_str(),
              static_cast<unsigned long>(seed), clock.ElapsedSeconds());
  return 0;
}
