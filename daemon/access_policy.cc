#include "daemon/access_policy.h"

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace mineru::daemon {

Result<PeerCredentials> GetPeerCredentials(int socket_fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(socket_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return ErrnoStatus(errno, "getsockopt(SO_PEERCRED)");
  }
  return PeerCredentials{cred.pid, cred.uid, cred.gid};
}

Result<AccessPolicy> AccessPolicy::Create(const std::string& admin_group) {
  AccessPolicy policy;
  if (admin_group.empty()) return policy;
  std::vector<char> buf(16384);
  group gr{};
  group* found = nullptr;
  int rc = ::getgrnam_r(admin_group.c_str(), &gr, buf.data(), buf.size(), &found);
  if (rc != 0) return ErrnoStatus(rc, "look up group '" + admin_group + "'");
  if (found == nullptr) return InvalidArgument("admin_group '" + admin_group + "' does not exist");
  policy.has_group_ = true;
  policy.admin_gid_ = gr.gr_gid;
  return policy;
}

bool AccessPolicy::IsAdmin(uid_t uid) const {
  if (uid == 0) return true;
  if (!has_group_) return false;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return false;
  if (pw.pw_gid == admin_gid_) return true;
  int count = 64;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  while (::getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &count) < 0) {
    if (count > 65536) return false;
    groups.resize(static_cast<size_t>(count));
  }
  for (int i = 0; i < count; ++i) {
    if (groups[static_cast<size_t>(i)] == admin_gid_) return true;
  }
  return false;
}

}  // namespace mineru::daemon
