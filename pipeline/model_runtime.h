// The model opened for serving from one config: the device, the memory plan, the residency manager
// under the plan's budgets, the tokenizer and prompt, the model, and the page scheduler's options — what
// the model backend runs, and what pipeline_bench runs the same way at other budgets and batch modes.
// Built once here so that the daemon and the benchmark cannot size or configure the model differently.
#pragma once

#include <memory>

#include "common/config.h"
#include "common/result.h"
#include "engine/mineru2_model.h"
#include "engine/tokenizer.h"
#include "pipeline/memory_plan.h"
#include "pipeline/page_scheduler.h"
#include "residency/device.h"
#include "residency/residency_manager.h"

namespace mineru::pipeline {

struct ModelRuntime {
  Config config;
  ModelMemoryPlan plan;
  // Destroyed from the bottom up: the model's weights live in the manager, the manager on the device.
  std::unique_ptr<residency::Device> device;
  std::unique_ptr<residency::ResidencyManager> manager;
  std::unique_ptr<engine::Tokenizer> tokenizer;
  std::unique_ptr<engine::Mineru2Model> model;
  // Everything but the watchdog and the idle work, which belong to whoever runs the scheduler.
  PageSchedulerOptions scheduler_options;

  bool on_cpu() const { return !device->is_cuda(); }
};

// Whether OpenModelRuntime computes on a GPU: this build has CUDA and a device is present.
bool ModelRunsOnGpu();

// Opens config.model_dir on the first CUDA device, else on this CPU's memory. kInvalidArgument for a
// folder that is not MinerU 2.0 or a vram_budget below what one page needs.
Result<std::unique_ptr<ModelRuntime>> OpenModelRuntime(const Config& config);

}  // namespace mineru::pipeline
