#include "pipeline/backend_factory.h"

#include <cstdio>

#include "pipeline/remote_backend.h"
#include "pipeline/sandboxed_text_backend.h"
#if defined(MINERU_DAEMON_MODEL)
#include "pipeline/model_backend.h"
#include "pipeline/plan_command.h"
#endif

namespace mineru::pipeline {

Result<OpenedBackend> OpenBackend(const Config& config) {
  OpenedBackend out;
  if (config.backend != "remote" && !config.remote_urls.empty()) {
    return InvalidArgument("remote_url is set, but backend is '" + config.backend +
                           "' (set backend = remote)");
  }
  if (config.backend == "remote") {
    MINERU_ASSIGN_OR_RETURN(std::unique_ptr<RemoteBackend> remote, RemoteBackend::Open(config));
    out.description = remote->Describe();
    out.backend = std::move(remote);
    return out;
  }
  if (config.backend == "model" && config.model_dir.empty()) {
    return InvalidArgument("backend = model needs model_dir");
  }
  if (config.backend == "text-layer" || config.model_dir.empty()) {
    MINERU_ASSIGN_OR_RETURN(std::unique_ptr<SandboxedTextLayerBackend> text,
                            SandboxedTextLayerBackend::Start(config));
    out.sandbox = text->Describe();
    out.backend = std::move(text);
    return out;
  }
#if defined(MINERU_DAEMON_MODEL)
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<ModelBackend> model, ModelBackend::Load(config));
  out.description = model->Describe();
  out.backend = std::move(model);
  return out;
#else
  return FailedPrecondition(
      "model_dir is set, but this minerud was built without the model backend (MINERU_DAEMON_MODEL=OFF)");
#endif
}

int RunPlan(const Config& config, const std::vector<std::string>& args) {
#if defined(MINERU_DAEMON_MODEL)
  return RunPlanCommand(config, args);
#else
  (void)config;
  (void)args;
  std::fputs("minerud plan: not built into this minerud (configured with MINERU_DAEMON_MODEL=OFF)\n", stderr);
  return 70;  // EX_SOFTWARE
#endif
}

}  // namespace mineru::pipeline
