// minerud's command line: which mode to run, where the config file is, and the overrides that apply on
// top of it (kept, so that SIGHUP re-reads the file and applies them again).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/config.h"
#include "common/result.h"

namespace mineru::daemon {

struct DaemonOptions {
  enum class Mode { kServe, kHelp, kVersion, kCheckConfig, kPlan };
  Mode mode = Mode::kServe;
  std::string config_path = kSystemConfigPath;
  bool config_path_given = false;  // a missing file is an error only when given explicitly
  // (key, value, source) in command-line order.
  struct Override {
    std::string key;
    std::string value;
    std::string source;
  };
  std::vector<Override> overrides;
  std::vector<std::string> plan_args;  // everything after `plan` but --config
};

// Parses argv. Usage errors are kInvalidArgument with a message for the user (exit 64).
Result<DaemonOptions> ParseDaemonOptions(int argc, const char* const* argv);

// Reads the config file (if any) and applies the overrides. Defaults fill the paths left empty.
Result<Config> LoadDaemonConfig(const DaemonOptions& options);

// The full --help text: usage, options, and every config key with its type and help.
std::string DaemonUsage();

}  // namespace mineru::daemon
