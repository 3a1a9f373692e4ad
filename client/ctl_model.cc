#include "client/ctl_model.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common/config.h"
#include "hub/model_pull.h"

namespace mineru::ctl {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ModelsDir(const CtlOptions& o) {
  return o.models_dir.empty() ? DefaultModelsDir() : o.models_dir;
}

// --endpoint, else $HF_ENDPOINT (the variable Hugging Face's own tools read for a mirror), else the hub.
std::string Endpoint(const CtlOptions& o) {
  std::string e = o.endpoint;
  if (e.empty()) {
    const char* env = std::getenv("HF_ENDPOINT");
    e = env != nullptr && env[0] != '\0' ? env : hub::kDefaultEndpoint;
  }
  while (!e.empty() && e.back() == '/') e.pop_back();
  return e;
}

// A pull's failure: bad data from the hub is bad input (65), a folder that cannot be written 74.
int PullExitCode(const Status& s) {
  switch (s.code()) {
    case StatusCode::kDataLoss:
      return kExitBadInput;
    case StatusCode::kIoError:
    case StatusCode::kResourceExhausted:
      return kExitWriteError;
    default:
      return ExitCodeFor(s.code());
  }
}

// The progress bar on a terminal (redrawn at most 10 times a second), a line per file otherwise.
class PullBar {
 public:
  explicit PullBar(Printer& p) : p_(p) {}

  void Update(const hub::PullProgress& g) {
    if (p_.quiet() || p_.json()) return;
    const bool file_done = g.file_verified;
    if (!p_.tty()) {
      if (file_done) {
        std::fprintf(stderr, "[%zu/%zu] %s (%s) verified\n", g.file_index + 1, g.num_files, g.path.c_str(),
                     FormatByteSize(g.file_size_bytes).c_str());
      }
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(100) &&
        !(file_done && g.file_index + 1 == g.num_files)) {
      return;
    }
    last_draw_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    if (first_done_ == UINT64_MAX) first_done_ = g.done_bytes;  // resumed bytes do not count as speed
    const double rate = seconds > 0.5 ? (g.done_bytes - first_done_) / seconds : 0.0;
    constexpr int kWidth = 30;
    const int filled = g.total_bytes == 0 ? kWidth : static_cast<int>(kWidth * g.done_bytes / g.total_bytes);
    std::fprintf(stderr, "\r\033[K[%s%s] %3d%% %s/%s %s/s  %zu/%zu %s", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, ' ').c_str(),
                 g.total_bytes == 0 ? 100 : static_cast<int>(100 * g.done_bytes / g.total_bytes),
                 FormatByteSize(g.done_bytes).c_str(), FormatByteSize(g.total_bytes).c_str(),
                 FormatByteSize(static_cast<uint64_t>(rate)).c_str(), g.file_index + 1, g.num_files,
                 g.path.c_str());
    std::fflush(stderr);
    open_ = true;
  }
  void End() {
    if (open_) std::fputc('\n', stderr);
    open_ = false;
  }

 private:
  Printer& p_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  uint64_t first_done_ = UINT64_MAX;
  bool open_ = false;
};

}  // namespace

int ModelPullCmd(const CtlOptions& o, Printer& p) {
  hub::PullOptions pull;
  pull.endpoint = Endpoint(o);
  if (!o.repo.empty()) pull.repo = o.repo;
  if (!o.revision.empty()) pull.revision = o.revision;
  pull.models_dir = ModelsDir(o);
  pull.name = o.name;
  pull.replace = o.replace;
  pull.retries = o.retries;
  PullBar bar(p);
  pull.on_progress = [&](const hub::PullProgress& g) { bar.Update(g); };
  auto http = hub::HttpSession::Create({});
  if (!http.ok()) return p.Error(http.status());
  Result<hub::PullResult> r = hub::PullModel(*http, pull);
  bar.End();
  if (!r.ok()) {
    const bool kept = r.status().code() == StatusCode::kUnavailable;
    return p.Error(r.status(), kept ? "what arrived is kept; run the same command again to resume" : "",
                   PullExitCode(r.status()));
  }
  const std::string name = r->model_dir.filename().string();
  if (p.json()) {
    p.Json({{"model", name},
            {"model_dir", r->model_dir.string()},
            {"repo", pull.repo},
            {"revision", pull.revision},
            {"already_present", r->already_present},
            {"files", r->num_files},
            {"total_bytes", r->total_bytes},
            {"downloaded_bytes", r->downloaded_bytes},
            {"resumed_bytes", r->resumed_bytes}});
    return kExitOk;
  }
  if (r->already_present) {
    p.Line(name + " is already in " + r->model_dir.string() + " (--replace fetches it again)");
  } else {
    p.Line(name + ": " + std::to_string(r->num_files) + " files, " + FormatByteSize(r->total_bytes) +
           ", checksums verified, in " + r->model_dir.string() + " (" + FormatByteSize(r->downloaded_bytes) +
           " downloaded" +
           (r->resumed_bytes > 0 ? ", " + FormatByteSize(r->resumed_bytes) + " resumed" : "") + ")");
  }
  p.Line("use it: `model_dir = " + name + "` in minerud.conf, or `minerud --model " + name + "`");
  return kExitOk;
}

int ModelListCmd(const CtlOptions& o, Printer& p) {
  const fs::path dir = ModelsDir(o);
  std::error_code ec;
  std::vector<std::pair<std::string, uint64_t>> models;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!IsModelName(name) || !it->is_directory()) continue;  // '.pull-*' are downloads in progress
    uint64_t bytes = 0;
    for (auto f = fs::recursive_directory_iterator(it->path(), ec);
         !ec && f != fs::recursive_directory_iterator(); f.increment(ec)) {
      if (f->is_regular_file()) bytes += f->file_size();
    }
    models.emplace_back(name, bytes);
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return p.Error(Status(StatusCode::kIoError, "list " + dir.string() + ": " + ec.message()), "",
                   kExitWriteError);
  }
  std::sort(models.begin(), models.end());
  for (const auto& [name, bytes] : models) {
    if (p.json()) {
      p.Json({{"model", name}, {"model_dir", (dir / name).string()}, {"bytes", bytes}});
    } else {
      p.Line(name + "\t" + FormatByteSize(bytes) + "\t" + (dir / name).string());
    }
  }
  if (models.empty() && !p.json()) {
    std::fprintf(stderr, "no models in %s (mineructl model pull)\n", dir.c_str());
  }
  return kExitOk;
}

}  // namespace mineru::ctl
