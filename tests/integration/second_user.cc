#include "tests/integration/second_user.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tests/integration/daemon_harness.h"

namespace mineru::testing {
namespace {

namespace fs = std::filesystem;

constexpr char kTestUser[] = "minerud-itest";

// The first folder on the way to `dir` that users other than root cannot enter, or "".
std::string FirstClosedFolder(const fs::path& dir) {
  std::error_code ec;
  fs::path at = fs::canonical(dir, ec);
  if (ec) return dir.string();
  for (fs::path p = at; !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0 || (st.st_mode & S_IXOTH) == 0) return p.string();
    if (p == p.root_path()) break;
  }
  return "";
}

}  // namespace

Result<SecondUser> SecondUser::Create(const std::string& test_dir) {
  if (::geteuid() != 0) return PermissionDenied("needs root to create and become a second user");
  if (::getpwnam(kTestUser) == nullptr) {
    RunResult add = RunProgram(
        {"/usr/sbin/useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", kTestUser});
    if (add.exit_code != 0) return FailedPrecondition("useradd " + std::string(kTestUser) + ": " + add.err);
  }
  const passwd* pw = ::getpwnam(kTestUser);
  if (pw == nullptr) return NotFound(std::string("no user ") + kTestUser);
  ::chmod(test_dir.c_str(), 0755);
  if (std::string closed = FirstClosedFolder(test_dir); !closed.empty()) {
    return FailedPrecondition("the test folder " + test_dir + " lies in " + closed +
                              ", which other users cannot enter (set TMPDIR to a folder they can)");
  }
  SecondUser u;
  u.uid_ = pw->pw_uid;
  u.gid_ = pw->pw_gid;
  u.spawn_.uid = u.uid_;
  u.spawn_.gid = u.gid_;
  u.ctl_ = test_dir + "/mineructl";
  std::error_code ec;
  if (!fs::exists(u.ctl_)) fs::copy_file(MineructlPath(), u.ctl_, ec);
  if (ec || ::chmod(u.ctl_.c_str(), 0755) != 0) return ErrnoStatus(errno, "copying mineructl to " + u.ctl_);
  u.home_ = test_dir + "/" + kTestUser;
  fs::create_directories(u.home_, ec);
  if (ec || ::chown(u.home_.c_str(), u.uid_, u.gid_) != 0 || ::chmod(u.home_.c_str(), 0755) != 0) {
    return ErrnoStatus(errno, "making " + u.home_);
  }
  return u;
}

std::string SecondUser::Readable(const std::string& path) const {
  const std::string copy = home_ + "/" + fs::path(path).filename().string();
  std::error_code ec;
  if (!fs::exists(copy)) fs::copy_file(path, copy, ec);
  ::chmod(copy.c_str(), 0644);
  return copy;
}

}  // namespace mineru::testing
