// AccessPolicy: who may see and touch a job. A job belongs to the uid that submitted it (SO_PEERCRED);
// that uid, root, and members of the configured admin group may see, cancel or fetch it. Anyone else
// is told the job does not exist, exactly as for an id never handed out.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/result.h"

namespace mineru::daemon {

// The credentials of a connected peer.
struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

// SO_PEERCRED of a connected Unix socket.
Result<PeerCredentials> GetPeerCredentials(int socket_fd);

class AccessPolicy {
 public:
  AccessPolicy() = default;
  // `admin_group` empty: only root is an admin. A group that does not exist is an error.
  static Result<AccessPolicy> Create(const std::string& admin_group);

  // Root, or a member (primary or supplementary) of the admin group. Group membership is looked up
  // for each call, so changes apply without a restart.
  bool IsAdmin(uid_t uid) const;
  bool MayAccess(uid_t caller, uid_t owner) const { return caller == owner || IsAdmin(caller); }

 private:
  bool has_group_ = false;
  gid_t admin_gid_ = 0;
};

}  // namespace mineru::daemon
