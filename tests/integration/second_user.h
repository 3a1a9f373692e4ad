// SecondUser: a second local uid for the tests that need two (root only; the user minerud-itest is
// created when missing).
//
// Everything that uid must reach lies in the test's own folder, never in the checkout, the build tree
// or ../shared: those may lie in a folder only root can enter (a fresh clone in a `mktemp -d` folder,
// mode 0700, as CI makes), where a path works for root and fails for the other uid with EACCES. So the
// other uid runs ctl() (a copy of mineructl, statically linked to our libraries), submits copies made
// by Readable() and writes into home() (a folder it owns). Create() refuses, naming the folder, when
// the test's folder itself is out of that uid's reach.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/result.h"
#include "tests/integration/subprocess.h"

namespace mineru::testing {

class SecondUser {
 public:
  // The user, with its files under `test_dir` (made enterable by everyone: mode 0755).
  static Result<SecondUser> Create(const std::string& test_dir);

  uid_t uid() const { return uid_; }
  gid_t gid() const { return gid_; }
  const SpawnOptions& spawn() const { return spawn_; }  // run as this user
  const std::string& ctl() const { return ctl_; }       // a mineructl it can execute
  const std::string& home() const { return home_; }     // a folder it owns
  // A copy of `path` that this user can read, with the same file name (results are named after it).
  std::string Readable(const std::string& path) const;

 private:
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  SpawnOptions spawn_;
  std::string ctl_;
  std::string home_;
};

}  // namespace mineru::testing
