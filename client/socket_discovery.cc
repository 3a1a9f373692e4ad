#include "client/socket_discovery.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "common/config.h"
#include "common/config_loader.h"

namespace mineru::client {
namespace {

struct ClientConfig {
  std::string socket_path;
};

const ConfigSchema<ClientConfig>& ClientSchema() {
  static const ConfigSchema<ClientConfig> schema = [] {
    ConfigSchema<ClientConfig> s;
    s.Path("socket", &ClientConfig::socket_path, "minerud's socket for this user's clients");
    return s;
  }();
  return schema;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

// The name of the group that owns `path` ("" when it cannot be looked at).
std::string SocketGroup(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  group* g = ::getgrgid(st.st_gid);
  return g == nullptr ? std::to_string(st.st_gid) : std::string(g->gr_name);
}

std::string UserName() {
  passwd* pw = ::getpwuid(::geteuid());
  return pw == nullptr ? "$USER" : std::string(pw->pw_name);
}

}  // namespace

std::string ClientConfigPath() {
  std::string xdg = Env("XDG_CONFIG_HOME");
  if (!xdg.empty() && xdg[0] == '/') return xdg + "/minerud/client.conf";
  std::string home = Env("HOME");
  if (!home.empty() && home[0] == '/') return home + "/.config/minerud/client.conf";
  return "";
}

Result<std::vector<SocketCandidate>> SocketCandidates(const std::string& explicit_path) {
  if (!explicit_path.empty()) return std::vector<SocketCandidate>{{explicit_path, "--socket"}};
  std::string env = Env("MINERU_SOCKET");
  if (!env.empty()) return std::vector<SocketCandidate>{{env, "$MINERU_SOCKET"}};
  const std::string conf_path = ClientConfigPath();
  if (!conf_path.empty() && ::access(conf_path.c_str(), F_OK) == 0) {
    ClientConfig conf;
    MINERU_RETURN_IF_ERROR(ClientSchema().LoadFile(conf_path, &conf));
    if (!conf.socket_path.empty()) {
      return std::vector<SocketCandidate>{{conf.socket_path, "socket in " + conf_path}};
    }
  }
  std::vector<SocketCandidate> out;
  const std::string own = DefaultSocketPath();
  if (own != kSystemSocketPath) out.push_back({own, "your own daemon"});
  out.push_back({kSystemSocketPath, "the system daemon"});
  return out;
}

std::string DescribeConnectFailure(const SocketCandidate& candidate, const Status& status) {
  std::string what;
  switch (status.sys_errno()) {
    case ENOENT:
      what = "no such socket";
      break;
    case ECONNREFUSED:
      what = "nothing listens there";
      break;
    case EACCES:
    case EPERM: {
      what = "permission denied";
      std::string group = SocketGroup(candidate.path);
      if (group.empty()) group = "minerud";
      what += "; members of the group '" + group + "' may connect (sudo usermod -aG " + group + " " +
              UserName() + ", then log in again)";
      break;
    }
    default:
      what = status.message();
  }
  return candidate.path + " (" + candidate.origin + "): " + what;
}

}  // namespace mineru::client
