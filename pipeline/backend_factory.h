// The daemon's one way to get a backend, as the config's `backend` says: "remote" (remote_url servers),
// "model", "text-layer", or "auto": the model backend when model_dir is set (and this build has it),
// else the text-layer backend. `minerud plan` is reached the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/result.h"
#include "pipeline/backend.h"

namespace mineru::pipeline {

struct OpenedBackend {
  std::unique_ptr<Backend> backend;
  std::string description;  // one line for the log and `mineructl info`: device, budgets; empty for text
  std::string sandbox;      // one line for the log: how the document workers are confined; empty if none
};

// Opens the backend `config` names. A model folder is loaded and validated here (errors name the file).
Result<OpenedBackend> OpenBackend(const Config& config);

// `minerud plan ARGS` with the daemon's config for defaults: the exit code. A build without the model backend
// says so (exit 70).
int RunPlan(const Config& config, const std::vector<std::string>& args);

}  // namespace mineru::pipeline
