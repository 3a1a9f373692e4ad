// minerud: the document-parsing daemon. Parses the command line, loads the config, takes the socket
// loads the backend (the model when model_dir is set) and runs the server; `minerud plan` is dispatched to
// the residency planner.
#include <unistd.h>

#include <cstdio>

#include "common/log.h"
#include "common/version.h"
#include "daemon/check_config.h"
#include "daemon/daemon_options.h"
#include "daemon/exit_status.h"
#include "daemon/listener.h"
#if defined(MINERU_DAEMON_MODEL)
#include "daemon/plan_command.h"
#include "daemon/vlm_backend.h"
#endif
#include "daemon/server.h"
#include "daemon/text_layer_backend.h"

namespace {

// `minerud plan --model DIR --vram-budget SIZE`: the residency planner's report.
int RunPlan(const std::vector<std::string>& args) {
#if defined(MINERU_DAEMON_MODEL)
  return mineru::daemon::RunPlanCommand(args);
#else
  (void)args;
  std::fputs("minerud plan: not built into this minerud (configured with MINERU_DAEMON_MODEL=OFF)\n", stderr);
  return mineru::daemon::kExitSoftware;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mineru;
  using namespace mineru::daemon;
  SetLogIdentifier("minerud");
  auto options = ParseDaemonOptions(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "minerud: %s\n", options.status().message().c_str());
    return kExitUsage;
  }
  switch (options->mode) {
    case DaemonOptions::Mode::kHelp:
      std::fputs(DaemonUsage().c_str(), stdout);
      return 0;
    case DaemonOptions::Mode::kVersion:
      std::printf("minerud %s\n", MINERU_VERSION_STRING);
      return 0;
    case DaemonOptions::Mode::kPlan:
      return RunPlan(options->plan_args);
    default:
      break;
  }
  auto config = LoadDaemonConfig(*options);
  if (!config.ok()) {
    std::fprintf(stderr, "minerud: %s\n", config.status().ToString().c_str());
    return kExitConfig;
  }
  LogLevel level = LogLevel::kInfo;
  ParseLogLevel(config->log_level, &level);
  SetLogLevel(level);
  if (options->mode == DaemonOptions::Mode::kCheckConfig) {
    CheckConfigOptions check;
    check.config_source =
        ::access(options->config_path.c_str(), F_OK) == 0 ? options->config_path : "no config file";
#if defined(MINERU_DAEMON_MODEL)
    check.open_model = [](const Config& c) -> Result<std::string> {
      MINERU_ASSIGN_OR_RETURN(std::unique_ptr<VlmBackend> vlm, VlmBackend::Load(c));
      return vlm->Describe();
    };
#endif
    return RunCheckConfig(*config, check, stdout) ? 0 : kExitConfig;
  }
  // The backend is ready before the socket listens, so READY=1 means "can parse".
  std::unique_ptr<Backend> backend;
  std::string model_description;
  if (config->model_dir.empty()) {
    backend = std::make_unique<TextLayerBackend>();
  } else {
#if defined(MINERU_DAEMON_MODEL)
    auto vlm = VlmBackend::Load(*config);
    if (!vlm.ok()) {
      MINERU_LOG(kError) << "cannot load the model: " << vlm.status().ToString();
      return BackendFailureExitStatus(vlm.status());
    }
    model_description = (*vlm)->Describe();
    MINERU_LOG(kInfo) << model_description;
    backend = std::move(*vlm);
#else
    MINERU_LOG(kError) << "model_dir is set, but this minerud was built without the model backend "
                          "(MINERU_DAEMON_MODEL=OFF)";
    return kExitConfig;
#endif
  }
  auto activated = TakeActivatedSocket();
  if (!activated.ok()) {
    MINERU_LOG(kError) << activated.status().ToString();
    return kExitUnavailable;
  }
  ListenSocket listen = std::move(*activated);
  if (!listen.fd) {
    auto mode = ParseSocketMode(config->socket_mode);
    auto bound = mode.ok() ? ListenOnPath(config->socket_path, *mode) : Result<ListenSocket>(mode.status());
    if (!bound.ok()) {
      MINERU_LOG(kError) << "cannot listen: " << bound.status().ToString();
      return kExitUnavailable;
    }
    listen = std::move(*bound);
  }
  Server::Options server_options{*options, *config, std::move(listen), std::move(backend), model_description};
  auto server = Server::Create(std::move(server_options));
  if (!server.ok()) {
    MINERU_LOG(kError) << "cannot start: " << server.status().ToString();
    return IsTemporaryStartFailure(server.status()) ? kExitTempFail : kExitSoftware;
  }
  return (*server)->Run();
}
