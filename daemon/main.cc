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
#include "daemon/server.h"
#include "pipeline/backend_factory.h"

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
    default:
      break;
  }
  auto config = LoadDaemonConfig(*options);
  if (options->mode == DaemonOptions::Mode::kPlan && config.ok())
    return pipeline::RunPlan(*config, options->plan_args);
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
    check.open_model = [](const Config& c) -> Result<std::string> {
      MINERU_ASSIGN_OR_RETURN(pipeline::OpenedBackend opened, pipeline::OpenBackend(c));
      return opened.description;
    };
    return RunCheckConfig(*config, check, stdout) ? 0 : kExitConfig;
  }
  // The backend is ready before the socket listens, so READY=1 means "can parse".
  auto opened = pipeline::OpenBackend(*config);
  if (!opened.ok()) {
    MINERU_LOG(kError) << "cannot load the backend: " << opened.status().ToString();
    return BackendFailureExitStatus(opened.status());
  }
  if (!opened->description.empty()) {
    MINERU_LOG(kInfo) << opened->description;
  }
  if (!opened->sandbox.empty()) {
    MINERU_LOG(kInfo) << opened->sandbox;
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
  Server::Options server_options{*options, *config, std::move(listen), std::move(opened->backend),
                                 opened->description};
  auto server = Server::Create(std::move(server_options));
  if (!server.ok()) {
    MINERU_LOG(kError) << "cannot start: " << server.status().ToString();
    return IsTemporaryStartFailure(server.status()) ? kExitTempFail : kExitSoftware;
  }
  return (*server)->Run();
}
