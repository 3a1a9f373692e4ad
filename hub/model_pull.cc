#include "hub/model_pull.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <set>

#include "common/config.h"
#include "common/syscall.h"
#include "common/unique_fd.h"
#include "hub/file_fetch.h"

namespace mineru::hub {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxListingPageBytes = 16ull << 20;
constexpr int kMaxListingPages = 100;

Status IoError(const std::string& what, const std::error_code& ec) {
  return Status(StatusCode::kIoError, what + ": " + ec.message());
}

Result<std::vector<RemoteFile>> FetchListing(HttpSession& http, const PullOptions& o) {
  std::vector<RemoteFile> files;
  std::string url = TreeUrl(o.endpoint, o.repo, o.revision);
  for (int page = 0; !url.empty(); ++page) {
    if (page == kMaxListingPages) return InvalidArgument("the tree listing has more than 100 pages");
    Result<HttpSession::Page> got = http.GetText(url, kMaxListingPageBytes);
    if (!got.ok()) {
      if (got.status().code() == StatusCode::kNotFound) {
        return NotFound("no repository " + o.repo + " (revision " + o.revision + ") at " + o.endpoint);
      }
      return got.status().WithContext("the file list of " + o.repo);
    }
    Result<std::vector<RemoteFile>> part = ParseTreeListing(got->body);
    if (!part.ok()) return part.status().WithContext(url);
    files.insert(files.end(), part->begin(), part->end());
    url = got->next_url;
  }
  std::set<std::string> seen;
  for (const RemoteFile& f : files) {
    if (!seen.insert(f.path).second) return InvalidArgument("the listing names " + f.path + " twice");
  }
  return files;
}

// The one pull of NAME at a time.
Result<UniqueFd> LockPull(const fs::path& lock_path) {
  UniqueFd fd(RetryEintr([&] { return ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644); }));
  if (!fd) return ErrnoStatus(errno, "open " + lock_path.string());
  if (RetryEintr([&] { return ::flock(fd.get(), LOCK_EX | LOCK_NB); }) != 0) {
    if (errno == EWOULDBLOCK)
      return Busy("another pull into " + lock_path.parent_path().string() + " is running");
    return ErrnoStatus(errno, "lock " + lock_path.string());
  }
  return fd;
}

// Files in `dir` that the listing does not name (from an earlier revision) are removed.
Status RemoveUnlisted(const fs::path& dir, const std::vector<RemoteFile>& files) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::Ok();
  std::set<fs::path> keep;
  for (const RemoteFile& f : files) {
    for (fs::path p = dir / f.path; p != dir; p = p.parent_path()) keep.insert(p);
  }
  std::vector<fs::path> stale;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!keep.count(it->path())) {
      stale.push_back(it->path());
      it.disable_recursion_pending();
    }
  }
  if (ec) return IoError("list " + dir.string(), ec);
  for (const fs::path& p : stale) {
    fs::remove_all(p, ec);
    if (ec) return IoError("remove " + p.string(), ec);
  }
  return Status::Ok();
}

Status CheckFreeSpace(const fs::path& dir, uint64_t need_bytes) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return ErrnoStatus(errno, "statvfs " + dir.string());
  const uint64_t free_bytes = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  if (free_bytes < need_bytes) {
    return ResourceExhausted(dir.string() + " has " + FormatByteSize(free_bytes) + " free; the model needs " +
                             FormatByteSize(need_bytes) + " more");
  }
  return Status::Ok();
}

Status SyncPath(const fs::path& path) {
  UniqueFd fd(RetryEintr([&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); }));
  if (!fd) return ErrnoStatus(errno, "open " + path.string());
  if (::fsync(fd.get()) != 0) return ErrnoStatus(errno, "fsync " + path.string());
  return Status::Ok();
}

// Every folder of the staging tree is opened to the daemon's user (0755, whatever the umask) and
// reaches the disk before the rename that publishes it.
Status SealTree(const fs::path& root) {
  std::error_code ec;
  std::vector<fs::path> dirs = {root};
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec)) dirs.push_back(it->path());
  }
  if (ec) return IoError("list " + root.string(), ec);
  for (const fs::path& dir : dirs) {
    if (::chmod(dir.c_str(), 0755) != 0) return ErrnoStatus(errno, "chmod " + dir.string());
    MINERU_RETURN_IF_ERROR(SyncPath(dir));
  }
  return Status::Ok();
}

Status Publish(const fs::path& staging, const fs::path& final_dir, const fs::path& models_dir) {
  MINERU_RETURN_IF_ERROR(SealTree(staging));
  std::error_code ec;
  if (fs::exists(final_dir, ec)) {
    // Swap in one step, so minerud finds the old model or the new one, never neither.
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final_dir.c_str(), RENAME_EXCHANGE) != 0) {
      return ErrnoStatus(errno, "swap " + staging.string() + " with " + final_dir.string());
    }
    fs::remove_all(staging, ec);  // now the old model
    if (ec) return IoError("remove the replaced model at " + staging.string(), ec);
  } else if (::rename(staging.c_str(), final_dir.c_str()) != 0) {
    return ErrnoStatus(errno, "rename " + staging.string() + " to " + final_dir.string());
  }
  return SyncPath(models_dir);
}

Status CheckOptions(const PullOptions& o, const std::string& name) {
  MINERU_RETURN_IF_ERROR(CheckRepoId(o.repo));
  MINERU_RETURN_IF_ERROR(CheckRevision(o.revision));
  if (!IsModelName(name)) {
    return InvalidArgument("'" + name +
                           "' is not a model name (letters, digits, '.', '-', '_'; not starting with '.')");
  }
  if (o.endpoint.rfind("http://", 0) != 0 && o.endpoint.rfind("https://", 0) != 0) {
    return InvalidArgument("the endpoint '" + o.endpoint + "' is not an http:// or https:// URL");
  }
  if (o.models_dir.empty()) return InvalidArgument("no models folder given");
  return Status::Ok();
}

}  // namespace

std::string DefaultModelName(const std::string& repo) {
  const size_t slash = repo.rfind('/');
  return slash == std::string::npos ? repo : repo.substr(slash + 1);
}

Result<PullResult> PullModel(HttpSession& http, const PullOptions& o) {
  const std::string name = o.name.empty() ? DefaultModelName(o.repo) : o.name;
  MINERU_RETURN_IF_ERROR(CheckOptions(o, name));
  PullResult result;
  result.model_dir = o.models_dir / name;
  std::error_code ec;
  if (fs::exists(result.model_dir, ec) && !o.replace) {
    result.already_present = true;
    return result;
  }
  fs::create_directories(o.models_dir, ec);
  if (ec) return IoError("create " + o.models_dir.string(), ec);
  MINERU_ASSIGN_OR_RETURN(UniqueFd lock, LockPull(o.models_dir / (".pull-" + name + ".lock")));
  if (fs::exists(result.model_dir, ec) && !o.replace) {  // another pull finished it meanwhile
    result.already_present = true;
    return result;
  }

  MINERU_ASSIGN_OR_RETURN(std::vector<RemoteFile> files, FetchListing(http, o));
  const fs::path staging = o.models_dir / (".pull-" + name);
  const fs::path partial = o.models_dir / (".pull-" + name + ".partial");
  MINERU_RETURN_IF_ERROR(RemoveUnlisted(staging, files));
  MINERU_RETURN_IF_ERROR(RemoveUnlisted(partial, files));
  for (const RemoteFile& f : files) result.total_bytes += f.size_bytes;
  uint64_t have_bytes = 0;
  for (const RemoteFile& f : files) {
    for (const fs::path& p : {staging / f.path, partial / f.path}) {
      const uint64_t size = fs::is_regular_file(p, ec) ? fs::file_size(p, ec) : 0;
      if (!ec) have_bytes += std::min(size, f.size_bytes);
    }
  }
  MINERU_RETURN_IF_ERROR(
      CheckFreeSpace(o.models_dir, result.total_bytes - std::min(have_bytes, result.total_bytes)));

  PullProgress progress;
  progress.num_files = files.size();
  progress.total_bytes = result.total_bytes;
  uint64_t before_file = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const RemoteFile& f = files[i];
    progress.path = f.path;
    progress.file_index = i;
    progress.file_size_bytes = f.size_bytes;
    FetchOptions fetch{.staging_dir = staging,
                       .partial_dir = partial,
                       .retries = o.retries,
                       .retry_delay_ms = o.retry_delay_ms,
                       .on_bytes = nullptr};
    progress.file_verified = false;
    fetch.on_bytes = [&](uint64_t done) {
      progress.file_done_bytes = done;
      progress.done_bytes = before_file + done;
      if (o.on_progress) o.on_progress(progress);
    };
    Result<FetchStats> got = FetchFile(http, FileUrl(o.endpoint, o.repo, o.revision, f.path), f, fetch);
    if (!got.ok()) return got.status();
    progress.file_verified = true;
    progress.file_done_bytes = f.size_bytes;
    progress.done_bytes = before_file + f.size_bytes;
    if (o.on_progress) o.on_progress(progress);
    result.downloaded_bytes += got->downloaded_bytes;
    result.resumed_bytes += got->resumed_bytes;
    before_file += f.size_bytes;
  }
  result.num_files = files.size();
  MINERU_RETURN_IF_ERROR(Publish(staging, result.model_dir, o.models_dir));
  fs::remove_all(partial, ec);
  fs::remove(o.models_dir / (".pull-" + name + ".lock"), ec);
  return result;
}

}  // namespace mineru::hub
