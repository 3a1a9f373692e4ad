#include "client/output_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "common/syscall.h"
#include "common/unique_fd.h"

namespace mineru::ctl {
namespace {

bool SafePart(std::string_view part) {
  if (part.empty() || part == "." || part == ".." || part.size() > 255) return false;
  for (char c : part) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

Status WriteAllTo(int fd, const std::vector<uint8_t>& data, const std::string& what) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = RetryEintr([&] { return ::write(fd, data.data() + done, data.size() - done); });
    if (n < 0) return ErrnoStatus(errno, "write " + what);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

Status ValidateResultPath(std::string_view path) {
  auto slash = path.find('/');
  bool ok = slash == std::string_view::npos
                ? SafePart(path)
                : SafePart(path.substr(0, slash)) && SafePart(path.substr(slash + 1));
  if (!ok) return InvalidArgument("refusing to write result file '" + std::string(path) + "'");
  return Status::Ok();
}

Result<std::vector<std::string>> WriteResultFiles(const std::string& dir,
                                                  const std::vector<client::ResultFile>& files) {
  for (const auto& f : files) MINERU_RETURN_IF_ERROR(ValidateResultPath(f.path));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ErrnoStatus(ec.value(), "create " + dir);
  UniqueFd dir_fd(RetryEintr([&] { return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); }));
  if (!dir_fd) return ErrnoStatus(errno, "open " + dir);
  std::vector<std::string> written;
  for (const auto& f : files) {
    int parent = dir_fd.get();
    UniqueFd sub;
    std::string leaf = f.path;
    auto slash = f.path.find('/');
    if (slash != std::string::npos) {
      std::string folder = f.path.substr(0, slash);
      leaf = f.path.substr(slash + 1);
      if (::mkdirat(dir_fd.get(), folder.c_str(), 0755) != 0 && errno != EEXIST) {
        return ErrnoStatus(errno, "mkdir " + dir + "/" + folder);
      }
      sub.reset(RetryEintr([&] {
        return ::openat(dir_fd.get(), folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      }));
      if (!sub) return ErrnoStatus(errno, "open " + dir + "/" + folder);
      parent = sub.get();
    }
    UniqueFd out(RetryEintr([&] {
      return ::openat(parent, leaf.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    }));
    std::string full = dir + "/" + f.path;
    if (!out) return ErrnoStatus(errno, "create " + full);
    MINERU_RETURN_IF_ERROR(WriteAllTo(out.get(), f.data, full));
    written.push_back(full);
  }
  return written;
}

}  // namespace mineru::ctl
