#include "daemon/check_config.h"

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "daemon/access_policy.h"
#include "daemon/http_listener.h"
#include "daemon/listener.h"

namespace mineru::daemon {
namespace {

// The daemon creates state_dir (and its parents) at start: it must be a writable folder, or be
// creatable under the nearest folder that exists.
Status CheckStateDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(dir);
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec)) return InvalidArgument("state_dir " + dir + " is not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      return ErrnoStatus(errno, "state_dir " + dir + " is not writable");
    return Status::Ok();
  }
  fs::path parent = p.parent_path();
  while (!parent.empty() && !fs::exists(parent, ec)) parent = parent.parent_path();
  if (parent.empty()) parent = ".";
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    return ErrnoStatus(errno,
                       "state_dir " + dir + " does not exist and cannot be created in " + parent.string());
  }
  return Status::Ok();
}

Status CheckSocketPath(const std::string& path) {
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    return InvalidArgument("socket path is " + std::to_string(path.size()) + " bytes; at most " +
                           std::to_string(sizeof(sockaddr_un::sun_path) - 1));
  }
  return Status::Ok();
}

Result<std::string> CheckModel(const Config& config, const CheckConfigOptions& options) {
  const bool named = config.backend != "auto" || !config.remote_urls.empty();
  if (config.model_dir.empty() && !named) return std::string("none (the text-layer backend)");
  std::error_code ec;
  if (config.backend != "remote" && config.backend != "text-layer" && !config.model_dir.empty() &&
      !std::filesystem::is_directory(config.model_dir, ec)) {
    return NotFound("model_dir " + config.model_dir +
                    " is not a folder (get a model with `mineructl model pull`)");
  }
  if (!options.open_model) {
    return FailedPrecondition("a model is configured, but this minerud was built without the model backend");
  }
  MINERU_ASSIGN_OR_RETURN(std::string description, options.open_model(config));
  return description.empty() ? std::string("none (the text-layer backend)") : description;
}

}  // namespace

bool RunCheckConfig(const Config& config, const CheckConfigOptions& options, std::FILE* out) {
  std::fprintf(out, "# the effective configuration: %s, then the command line, then the defaults\n",
               options.config_source.c_str());
  for (const auto& [key, value] : ConfigSchemaFor().Format(config)) {
    std::fprintf(out, "%s = %s\n", key.c_str(), value.c_str());
  }
  std::fprintf(out, "\n");
  bool ok = true;
  auto report = [&](const char* what, const Status& s, const std::string& detail = "ok") {
    std::fprintf(out, "%-12s %s\n", what, s.ok() ? detail.c_str() : ("ERROR: " + s.message()).c_str());
    ok = ok && s.ok();
  };
  Status socket = CheckSocketPath(config.socket_path);
  report("socket", socket.ok() ? ParseSocketMode(config.socket_mode).status() : socket);
  report("state_dir", CheckStateDir(config.state_dir));
  report("admin_group", AccessPolicy::Create(config.admin_group).status(),
         config.admin_group.empty() ? "none" : "ok");
  Result<std::string> model = CheckModel(config, options);
  report("model", model.status(), model.ok() ? *model : "");
  if (!config.http_listen.empty()) {
    Status http = HttpListenerOptions::FromConfig(config, nullptr).status();
    if (http.ok() && model.ok() && model->starts_with("none")) {
      http = FailedPrecondition("http_listen serves this minerud's model, and it runs none (set model_dir)");
    }
    report("http_listen", http);
  }
  std::fprintf(out, ok ? "configuration OK\n" : "configuration has errors\n");
  return ok;
}

}  // namespace mineru::daemon
