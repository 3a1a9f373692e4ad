#include "daemon/daemon_options.h"

#include <unistd.h>

#include <cstring>
#include <sstream>

namespace mineru::daemon {
namespace {

// Options that set one config key: flag -> key.
struct KeyFlag {
  const char* flag;
  const char* key;
  const char* metavar;
};
constexpr KeyFlag kKeyFlags[] = {
    {"--socket", "socket", "PATH"},
    {"--state-dir", "state_dir", "DIR"},
    {"--model", "model_dir", "DIR|NAME"},
    {"--vram-budget", "vram_budget", "SIZE"},
    {"--workers", "workers", "N"},
    {"--log-level", "log_level", "LEVEL"},
    {"--drain-timeout", "drain_timeout", "DURATION"},
};

}  // namespace

std::string DaemonUsage() {
  std::ostringstream o;
  o << "Usage: minerud [OPTIONS]\n"
       "       minerud plan --model DIR --vram-budget SIZE\n"
       "\n"
       "Parses documents submitted with mineructl or libmineru-client into Markdown and MinerU's JSON,\n"
       "keeping the MinerU 2.0 model resident once for every local app. Without a model it uses the\n"
       "text-layer backend (MuPDF). Runs in the foreground; under systemd it speaks sd_notify\n"
       "(Type=notify), takes a socket by socket activation, and pings the watchdog.\n"
       "\n"
       "Options:\n"
       "  --config FILE        config file (default /etc/minerud.conf; a missing default is fine)\n"
       "  --socket PATH        Unix socket to listen on (default $XDG_RUNTIME_DIR/minerud.sock, or\n"
       "                       /run/minerud/minerud.sock for root)\n"
       "  --state-dir DIR      spool of accepted jobs and kept results (default\n"
       "                       $XDG_STATE_HOME/minerud, or /var/lib/minerud for root)\n"
       "  --model DIR|NAME     MinerU 2.0 model folder, or a name in models_dir (default: none,\n"
       "                       text-layer backend)\n"
       "  --vram-budget SIZE   most GPU memory to use, e.g. 6G\n"
       "  --workers N          parsing threads (0: one per core)\n"
       "  --log-level LEVEL    debug, info, warning or error\n"
       "  --drain-timeout DURATION  time to finish running jobs on SIGTERM, e.g. 30s\n"
       "  --set KEY=VALUE      set any config key below (repeatable)\n"
       "  --check-config       check everything minerud checks at start (the model folder included),\n"
       "                       print the whole effective configuration, and exit (0 ok, 78 not)\n"
       "  --help               print this help and exit\n"
       "  --version            print the version and exit\n"
       "\n"
       "Subcommands:\n"
       "  plan --model DIR --vram-budget SIZE\n"
       "                       print where each unit of the model would live under the budget\n"
       "\n"
       "Signals: SIGTERM stops accepting jobs, drains running ones for drain_timeout, exits 0;\n"
       "SIGHUP re-reads the config file (keeping the old config if the new one is invalid).\n"
       "Exit status: 0 ok, 64 usage error, 78 configuration error, 69 cannot listen, 70 internal error,\n"
       "75 not ready yet (the GPU or its memory, a full state directory): retry later.\n"
       "\n"
       "Config keys (KEY = VALUE lines in the config file, or --set KEY=VALUE):\n";
  for (const ConfigKeyInfo& k : ConfigSchemaFor().keys()) {
    std::string left = "  " + k.key + " (" + k.type + ")";
    o << left;
    if (left.size() < 32)
      o << std::string(32 - left.size(), ' ');
    else
      o << "\n" << std::string(32, ' ');
    o << k.help << "\n";
  }
  return o.str();
}

Result<DaemonOptions> ParseDaemonOptions(int argc, const char* const* argv) {
  DaemonOptions out;
  int i = 1;
  if (argc > 1 && std::strcmp(argv[1], "plan") == 0) {
    // The plan reads the daemon's config file (--config, else the default) for its defaults; every
    // other argument is the plan's own.
    out.mode = DaemonOptions::Mode::kPlan;
    for (i = 2; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--config") {
        if (i + 1 >= argc) return InvalidArgument("--config needs a value");
        out.config_path = argv[++i];
        out.config_path_given = true;
      } else if (arg.rfind("--config=", 0) == 0) {
        out.config_path = std::string(arg.substr(9));
        out.config_path_given = true;
      } else {
        out.plan_args.emplace_back(arg);
      }
    }
    return out;
  }
  auto value_of = [&](std::string_view arg, std::string_view flag, std::string* value) -> Result<bool> {
    if (arg == flag) {
      if (i + 1 >= argc) return InvalidArgument(std::string(flag) + " needs a value");
      *value = argv[++i];
      return true;
    }
    if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag && arg[flag.size()] == '=') {
      *value = std::string(arg.substr(flag.size() + 1));
      return true;
    }
    return false;
  };
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string value;
    if (arg == "--help" || arg == "-h") {
      out.mode = DaemonOptions::Mode::kHelp;
      return out;
    }
    if (arg == "--version") {
      out.mode = DaemonOptions::Mode::kVersion;
      return out;
    }
    if (arg == "--check-config") {
      out.mode = DaemonOptions::Mode::kCheckConfig;
      continue;
    }
    MINERU_ASSIGN_OR_RETURN(bool is_config, value_of(arg, "--config", &value));
    if (is_config) {
      out.config_path = value;
      out.config_path_given = true;
      continue;
    }
    MINERU_ASSIGN_OR_RETURN(bool is_set, value_of(arg, "--set", &value));
    if (is_set) {
      auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0)
        return InvalidArgument("--set expects KEY=VALUE, got '" + value + "'");
      std::string key = value.substr(0, eq);
      if (!ConfigSchemaFor().HasKey(key)) return InvalidArgument("--set: unknown config key '" + key + "'");
      out.overrides.push_back({key, value.substr(eq + 1), "--set " + key});
      continue;
    }
    bool matched = false;
    for (const KeyFlag& kf : kKeyFlags) {
      MINERU_ASSIGN_OR_RETURN(bool hit, value_of(arg, kf.flag, &value));
      if (hit) {
        out.overrides.push_back({kf.key, value, kf.flag});
        matched = true;
        break;
      }
    }
    if (!matched) return InvalidArgument("unknown option '" + std::string(arg) + "' (see minerud --help)");
  }
  return out;
}

Result<Config> LoadDaemonConfig(const DaemonOptions& options) {
  Config config;
  const auto& schema = ConfigSchemaFor();
  if (options.config_path_given || ::access(options.config_path.c_str(), F_OK) == 0) {
    MINERU_RETURN_IF_ERROR(schema.LoadFile(options.config_path, &config));
  }
  for (const auto& o : options.overrides) {
    MINERU_RETURN_IF_ERROR(schema.Override(o.key, o.value, o.source, &config));
  }
  if (config.socket_path.empty()) config.socket_path = DefaultSocketPath();
  if (config.state_dir.empty()) config.state_dir = DefaultStateDir();
  if (config.models_dir.empty()) config.models_dir = DefaultModelsDir();
  MINERU_ASSIGN_OR_RETURN(config.model_dir, ResolveModelDir(config.model_dir, config.models_dir));
  return config;
}

}  // namespace mineru::daemon
