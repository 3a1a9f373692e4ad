#include "daemon/spool.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "common/syscall.h"
#include "common/unique_fd.h"

namespace mineru::daemon {
namespace {

constexpr JobId kIdReserveBlock = 1024;
constexpr uint64_t kMaxRecordBytes = 1 << 20;
constexpr char kIncomingPrefix[] = ".incoming-";
// Results file: magic, then per file: u32 path length, path, u64 data length, data.
constexpr char kResultsMagic[8] = {'M', 'R', 'E', 'S', 'U', 'L', 'T', '1'};

Status SpoolError(int err, const std::string& what) {
  if (err == ENOSPC || err == EDQUOT) {
    return Status(StatusCode::kResourceExhausted, "state directory is full: " + what, err);
  }
  return ErrnoStatus(err, what);
}

Status WriteAll(int fd, const uint8_t* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = RetryEintr([&] { return ::write(fd, data, size); });
    if (n < 0) return SpoolError(errno, "write " + path);
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status FsyncDir(const std::string& dir) {
  UniqueFd fd(RetryEintr([&] { return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); }));
  if (!fd) return ErrnoStatus(errno, "open " + dir);
  if (::fsync(fd.get()) != 0) return SpoolError(errno, "fsync " + dir);
  return Status::Ok();
}

std::string Parent(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

bool ParseId(std::string_view s, JobId* id) {
  if (s.empty() || s.size() > 20) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *id);
  return ec == std::errc() && p == s.data() + s.size() && *id > 0;
}

// Writes `data` to a new file `path` (no rename) and fsyncs it.
Status WriteNewFile(const std::string& path, std::span<const uint8_t> data) {
  UniqueFd fd(RetryEintr(
      [&] { return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600); }));
  if (!fd) return SpoolError(errno, "create " + path);
  MINERU_RETURN_IF_ERROR(WriteAll(fd.get(), data.data(), data.size(), path));
  if (::fsync(fd.get()) != 0) return SpoolError(errno, "fsync " + path);
  return Status::Ok();
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

void AppendU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), sizeof v); }
void AppendU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), sizeof v); }

}  // namespace

Status WriteFileDurably(const std::string& path, std::span<const uint8_t> data) {
  std::string tmp = path + ".tmp";
  Status s = WriteNewFile(tmp, data);
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = SpoolError(errno, "rename " + tmp);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return FsyncDir(Parent(path));
}

Status WriteFileDurably(const std::string& path, std::string_view data) {
  return WriteFileDurably(path, std::span(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
}

Result<std::string> ReadSmallFile(const std::string& path, uint64_t max_bytes) {
  UniqueFd fd(RetryEintr([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW); }));
  if (!fd) return ErrnoStatus(errno, "open " + path);
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = RetryEintr([&] { return ::read(fd.get(), buf, sizeof buf); });
    if (n < 0) return ErrnoStatus(errno, "read " + path);
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) return DataLoss(path + " is larger than expected");
  }
  return out;
}

Result<Spool> Spool::Open(const std::string& dir) {
  if (dir.empty()) return InvalidArgument("state directory is empty");
  std::error_code ec;
  std::filesystem::create_directories(dir + "/jobs", ec);
  if (ec) return ErrnoStatus(ec.value(), "create state directory " + dir);
  ::chmod(dir.c_str(), 0700);
  Spool spool(dir);
  // Remove half-written jobs and temp files.
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/jobs", ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(kIncomingPrefix, 0) == 0) RemoveTree(entry.path().string());
  }
  // Ids: past both the reservation file and every folder present.
  JobId next = 1;
  auto text = ReadSmallFile(dir + "/next_id", 64);
  if (text.ok()) {
    std::string_view v = *text;
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    if (!ParseId(v, &next)) return DataLoss(dir + "/next_id is not a job id");
  } else if (text.status().sys_errno() != ENOENT) {
    return text.status();
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/jobs", ec)) {
    JobId id = 0;
    if (ParseId(entry.path().filename().string(), &id)) next = std::max(next, id + 1);
  }
  spool.next_id_ = next;
  spool.reserved_until_ = next;
  return spool;
}

Spool::Spool(Spool&& other) noexcept : dir_(std::move(other.dir_)) {
  std::lock_guard lock(other.id_mu_);
  next_id_ = other.next_id_;
  reserved_until_ = other.reserved_until_;
}

std::string Spool::JobDir(JobId id) const { return dir_ + "/jobs/" + std::to_string(id); }

Result<JobId> Spool::AllocateId() {
  std::lock_guard lock(id_mu_);
  if (next_id_ >= reserved_until_) {
    JobId reserve = next_id_ + kIdReserveBlock;
    MINERU_RETURN_IF_ERROR(WriteFileDurably(dir_ + "/next_id", std::to_string(reserve) + "\n"));
    reserved_until_ = reserve;
  }
  return next_id_++;
}

Result<std::vector<JobInfo>> Spool::LoadJobs() const {
  std::vector<JobInfo> jobs;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir_ + "/jobs", ec);
  if (ec) return ErrnoStatus(ec.value(), "list " + dir_ + "/jobs");
  for (const auto& entry : it) {
    JobId id = 0;
    if (!ParseId(entry.path().filename().string(), &id)) continue;
    auto text = ReadSmallFile(JobDir(id) + "/job.json", kMaxRecordBytes);
    Result<JobInfo> info = text.ok() ? JobInfoFromJson(*text) : Result<JobInfo>(text.status());
    if (info.ok() && info->id == id) {
      jobs.push_back(std::move(*info));
      continue;
    }
    JobInfo broken;
    broken.id = id;
    broken.uid = 0;  // unknown owner: only root and admins see it
    broken.name = "unknown";
    broken.state = JobState::kFailed;
    broken.error_code = StatusCode::kDataLoss;
    broken.error = "the spooled job record could not be read: " +
                   (info.ok() ? std::string("id mismatch") : info.status().ToString());
    jobs.push_back(std::move(broken));
  }
  std::sort(jobs.begin(), jobs.end(), [](const JobInfo& a, const JobInfo& b) { return a.id < b.id; });
  return jobs;
}

Status Spool::Accept(const JobInfo& info, std::span<const uint8_t> document) {
  std::string incoming = dir_ + "/jobs/" + kIncomingPrefix + std::to_string(info.id);
  std::string final_dir = JobDir(info.id);
  if (::mkdir(incoming.c_str(), 0700) != 0) return SpoolError(errno, "mkdir " + incoming);
  std::string record = JobInfoToJson(info);
  Status s = WriteNewFile(incoming + "/document", document);
  if (s.ok()) {
    s = WriteNewFile(incoming + "/job.json",
                     std::span(reinterpret_cast<const uint8_t*>(record.data()), record.size()));
  }
  if (s.ok()) s = FsyncDir(incoming);
  if (s.ok() && ::rename(incoming.c_str(), final_dir.c_str()) != 0)
    s = SpoolError(errno, "rename " + incoming);
  if (!s.ok()) {
    RemoveTree(incoming);
    return s;
  }
  return FsyncDir(dir_ + "/jobs");
}

Status Spool::SaveInfo(const JobInfo& info) {
  return WriteFileDurably(JobDir(info.id) + "/job.json", JobInfoToJson(info));
}

Result<MappedRegion> Spool::MapDocument(JobId id) const {
  std::string path = JobDir(id) + "/document";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus(errno, "stat " + path);
  if (st.st_size == 0) return MappedRegion();
  return MappedRegion::MapFile(path.c_str());
}

Status Spool::SaveResults(JobId id, const std::vector<OutputFile>& files) {
  std::string blob(kResultsMagic, sizeof kResultsMagic);
  for (const OutputFile& f : files) {
    AppendU32(&blob, static_cast<uint32_t>(f.path.size()));
    blob += f.path;
    AppendU64(&blob, f.data.size());
    blob += f.data;
  }
  return WriteFileDurably(JobDir(id) + "/results", blob);
}

bool Spool::HasResults(JobId id) const { return ::access((JobDir(id) + "/results").c_str(), F_OK) == 0; }

Result<std::vector<OutputFile>> Spool::LoadResults(JobId id) const {
  MINERU_ASSIGN_OR_RETURN(MappedRegion map, MappedRegion::MapFile((JobDir(id) + "/results").c_str()));
  std::span<const uint8_t> b = map.bytes();
  auto bad = [] { return DataLoss("spooled results are truncated or corrupt"); };
  if (b.size() < sizeof kResultsMagic || std::memcmp(b.data(), kResultsMagic, sizeof kResultsMagic) != 0) {
    return bad();
  }
  size_t pos = sizeof kResultsMagic;
  std::vector<OutputFile> files;
  while (pos < b.size()) {
    uint32_t path_len = 0;
    uint64_t data_len = 0;
    if (b.size() - pos < sizeof path_len) return bad();
    std::memcpy(&path_len, b.data() + pos, sizeof path_len);
    pos += sizeof path_len;
    if (b.size() - pos < path_len) return bad();
    OutputFile f;
    f.path.assign(reinterpret_cast<const char*>(b.data() + pos), path_len);
    pos += path_len;
    if (b.size() - pos < sizeof data_len) return bad();
    std::memcpy(&data_len, b.data() + pos, sizeof data_len);
    pos += sizeof data_len;
    if (b.size() - pos < data_len) return bad();
    f.data.assign(reinterpret_cast<const char*>(b.data() + pos), data_len);
    pos += data_len;
    files.push_back(std::move(f));
  }
  return files;
}

Status Spool::DropPayload(JobId id) {
  for (const char* name : {"/document", "/results"}) {
    std::string path = JobDir(id) + name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus(errno, "unlink " + path);
  }
  return Status::Ok();
}

Status Spool::Remove(JobId id) {
  std::error_code ec;
  std::filesystem::remove_all(JobDir(id), ec);
  if (ec) return ErrnoStatus(ec.value(), "remove " + JobDir(id));
  return Status::Ok();
}

Result<uint64_t> Spool::FreeBytes() const {
  struct statvfs st {};
  if (::statvfs(dir_.c_str(), &st) != 0) return ErrnoStatus(errno, "statvfs " + dir_);
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

}  // namespace mineru::daemon
