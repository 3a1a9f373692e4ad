#include "hub/file_fetch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "common/syscall.h"
#include "common/unique_fd.h"

namespace mineru::hub {
namespace {

namespace fs = std::filesystem;

Status DigestMismatch(const RemoteFile& file, const std::string& got, const std::string& what_next) {
  return DataLoss(file.path + ": " + DigestKindName(file.digest.kind) + " is " + got + ", the listing says " +
                  file.digest.hex + " (" + what_next + ")");
}

// Checks the whole of an open file against the listing.
Status VerifyWhole(int fd, const RemoteFile& file) {
  MINERU_ASSIGN_OR_RETURN(FileDigest digest, FileDigest::Create(file.digest.kind, file.size_bytes));
  MINERU_RETURN_IF_ERROR(UpdateFromFile(digest, fd, file.size_bytes));
  const std::string got = digest.Finish();
  return got == file.digest.hex ? Status::Ok() : DigestMismatch(file, got, "removed");
}

// An earlier run's finished file: kept if it still has the listed size and digest, removed if not.
Result<bool> KeepFinished(const fs::path& path, const RemoteFile& file) {
  UniqueFd fd(RetryEintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); }));
  if (!fd) {
    if (errno == ENOENT) return false;
    return ErrnoStatus(errno, "open " + path.string());
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "stat " + path.string());
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == file.size_bytes &&
      VerifyWhole(fd.get(), file).ok()) {
    return true;
  }
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) return Status(StatusCode::kIoError, "remove " + path.string() + ": " + ec.message());
  return false;
}

// The partial file: appended to in order, hashed as it grows.
class PartialFile : public DownloadSink {
 public:
  PartialFile(const RemoteFile& file, UniqueFd fd, FileDigest digest, uint64_t size_bytes,
              const std::function<void(uint64_t)>& on_bytes)
      : file_(file), fd_(std::move(fd)), digest_(std::move(digest)), size_(size_bytes), on_bytes_(on_bytes) {}

  uint64_t size() const { return size_; }
  uint64_t received() const { return received_; }
  int fd() const { return fd_.get(); }
  std::string Finish() { return digest_.Finish(); }

  Status Begin(bool from_offset) override {
    if (from_offset || size_ == 0) return Status::Ok();
    // The server ignored the Range request and sends the whole file: start over.
    if (::ftruncate(fd_.get(), 0) != 0) return ErrnoStatus(errno, "truncate the partial " + file_.path);
    MINERU_ASSIGN_OR_RETURN(digest_, FileDigest::Create(file_.digest.kind, file_.size_bytes));
    size_ = 0;
    return Status::Ok();
  }

  Status Write(std::span<const char> bytes) override {
    if (size_ + bytes.size() > file_.size_bytes) {
      return DataLoss(file_.path + ": the server sends more than the listed " +
                      std::to_string(file_.size_bytes) + " bytes");
    }
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = RetryEintr([&] {
        return ::pwrite(fd_.get(), bytes.data() + done, bytes.size() - done,
                        static_cast<off_t>(size_ + done));
      });
      if (n < 0) return ErrnoStatus(errno, "write the partial " + file_.path);
      done += static_cast<size_t>(n);
    }
    digest_.Update(bytes);
    size_ += bytes.size();
    received_ += bytes.size();
    if (on_bytes_) on_bytes_(size_);
    return Status::Ok();
  }

 private:
  const RemoteFile& file_;
  UniqueFd fd_;
  FileDigest digest_;
  uint64_t size_;
  uint64_t received_ = 0;
  const std::function<void(uint64_t)>& on_bytes_;
};

Result<UniqueFd> OpenPartial(const fs::path& path, uint64_t* size_bytes) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return Status(StatusCode::kIoError, "create " + path.parent_path().string() + ": " + ec.message());
  UniqueFd fd(
      RetryEintr([&] { return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644); }));
  if (!fd) return ErrnoStatus(errno, "open " + path.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "stat " + path.string());
  if (!S_ISREG(st.st_mode)) return InvalidArgument(path.string() + " is not a regular file");
  // Readable by the daemon's user whatever the umask of the one who pulls (a model is no secret).
  if (::fchmod(fd.get(), 0644) != 0) return ErrnoStatus(errno, "chmod " + path.string());
  *size_bytes = static_cast<uint64_t>(st.st_size);
  return fd;
}

bool Retriable(const Status& s) { return s.code() == StatusCode::kUnavailable; }

}  // namespace

Result<FetchStats> FetchFile(HttpSession& http, const std::string& url, const RemoteFile& file,
                             const FetchOptions& options) {
  FetchStats stats;
  const fs::path final_path = options.staging_dir / file.path;
  const fs::path partial_path = options.partial_dir / file.path;
  MINERU_ASSIGN_OR_RETURN(const bool finished, KeepFinished(final_path, file));
  if (finished) {
    if (options.on_bytes) options.on_bytes(file.size_bytes);
    stats.already_verified = true;
    return stats;
  }

  uint64_t kept = 0;
  MINERU_ASSIGN_OR_RETURN(UniqueFd fd, OpenPartial(partial_path, &kept));
  if (kept > file.size_bytes) {
    if (::ftruncate(fd.get(), 0) != 0) return ErrnoStatus(errno, "truncate " + partial_path.string());
    kept = 0;
  }
  MINERU_ASSIGN_OR_RETURN(FileDigest digest, FileDigest::Create(file.digest.kind, file.size_bytes));
  MINERU_RETURN_IF_ERROR(UpdateFromFile(digest, fd.get(), kept));
  if (options.on_bytes) options.on_bytes(kept);
  stats.resumed_bytes = kept;
  PartialFile partial(file, std::move(fd), std::move(digest), kept, options.on_bytes);

  int64_t delay_ms = options.retry_delay_ms;
  for (int attempt = 0; partial.size() < file.size_bytes; ++attempt) {
    Status s = http.Download(url, partial.size(), partial);
    if (s.ok() && partial.size() < file.size_bytes) {
      s = Unavailable(file.path + ": the transfer ended at byte " + std::to_string(partial.size()) + " of " +
                      std::to_string(file.size_bytes));
    }
    if (s.ok()) break;
    if (!Retriable(s) || attempt >= options.retries) {
      stats.downloaded_bytes = partial.received();
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    delay_ms *= 2;
  }
  stats.downloaded_bytes = partial.received();

  const std::string got = partial.Finish();
  if (got != file.digest.hex) {
    std::error_code ec;
    fs::remove(partial_path, ec);
    return DigestMismatch(file, got, "the download was removed; run again to fetch it anew");
  }
  if (::fsync(partial.fd()) != 0) return ErrnoStatus(errno, "fsync " + partial_path.string());
  std::error_code ec;
  fs::create_directories(final_path.parent_path(), ec);
  if (ec)
    return Status(StatusCode::kIoError, "create " + final_path.parent_path().string() + ": " + ec.message());
  if (::rename(partial_path.c_str(), final_path.c_str()) != 0) {
    return ErrnoStatus(errno, "rename into " + final_path.string());
  }
  return stats;
}

}  // namespace mineru::hub
