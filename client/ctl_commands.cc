#include "client/ctl_commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "client/ctl_model.h"
#include "client/ctl_printer.h"
#include "client/output_writer.h"
#include "common/config_loader.h"
#include "common/syscall.h"
#include "common/unique_fd.h"
#include "common/version.h"
#include "mineru/client.h"

namespace mineru::ctl {
namespace {

using client::Client;
using client::JobState;
using client::JobStatus;
using nlohmann::json;

json StatusJson(const JobStatus& s) {
  json j = {{"job_id", s.id},
            {"owner_uid", s.owner_uid},
            {"state", JobStateName(s.state)},
            {"name", s.name},
            {"backend", s.backend},
            {"pages_done", s.pages_done},
            {"pages_total", s.pages_total},
            {"submitted_unix_ms", s.submitted_unix_ms},
            {"finished_unix_ms", s.finished_unix_ms},
            {"document_bytes", s.document_bytes}};
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

std::string FormatTime(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  time_t t = static_cast<time_t>(unix_ms / 1000);
  tm local{};
  ::localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &local);
  return buf;
}

void PrintTable(const Printer& p, const std::vector<JobStatus>& jobs) {
  p.Line("ID       STATE      PAGES      UID    SUBMITTED            NAME");
  for (const auto& s : jobs) {
    char line[512];
    std::string pages = std::to_string(s.pages_done) + "/" + std::to_string(s.pages_total);
    std::snprintf(line, sizeof line, "%-8llu %-10s %-10s %-6u %-20s %s",
                  static_cast<unsigned long long>(s.id), JobStateName(s.state), pages.c_str(), s.owner_uid,
                  FormatTime(s.submitted_unix_ms).c_str(), s.name.c_str());
    p.Line(line);
    if (!s.error.empty()) p.Line("         error: " + s.error);
  }
}

Result<Client> Connect(const CtlOptions& o) {
  client::ClientOptions co;
  co.socket_path = o.socket_path;
  co.client_name = std::string("mineructl ") + MINERU_VERSION_STRING;
  co.page_results = o.stream;
  return Client::Connect(co);
}

// The output base name for a file: its name without a .pdf extension.
std::string BaseName(const std::string& file) {
  std::string name = std::filesystem::path(file).filename().string();
  if (name.size() > 4) {
    std::string ext = name.substr(name.size() - 4);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".pdf") name.resize(name.size() - 4);
  }
  return name;
}

// Reads a file (or stdin) straight into a document buffer for zero-copy submission.
Result<client::DocumentBuffer> ReadDocument(const std::string& file) {
  UniqueFd owned;
  int fd = STDIN_FILENO;
  if (file != "-") {
    owned.reset(RetryEintr([&] { return ::open(file.c_str(), O_RDONLY | O_CLOEXEC); }));
    if (!owned)
      return Status(StatusCode::kInvalidArgument, "cannot open " + file + ": " + std::strerror(errno), errno);
    fd = owned.get();
    struct stat st {};
    if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "stat " + file);
    if (!S_ISREG(st.st_mode)) return InvalidArgument(file + " is not a regular file");
    if (st.st_size == 0) return InvalidArgument(file + " is empty");
    MINERU_ASSIGN_OR_RETURN(client::DocumentBuffer buffer,
                            client::DocumentBuffer::Create(static_cast<uint64_t>(st.st_size)));
    auto data = buffer.data();
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = RetryEintr([&] { return ::read(fd, data.data() + done, data.size() - done); });
      if (n < 0) return ErrnoStatus(errno, "read " + file);
      if (n == 0) return InvalidArgument(file + " shrank while being read");
      done += static_cast<size_t>(n);
    }
    return buffer;
  }
  // stdin: size unknown; read it all, then copy into a buffer.
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  for (;;) {
    ssize_t n = RetryEintr([&] { return ::read(fd, chunk, sizeof chunk); });
    if (n < 0) return ErrnoStatus(errno, "read stdin");
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  if (bytes.empty()) return InvalidArgument("stdin is empty");
  MINERU_ASSIGN_OR_RETURN(client::DocumentBuffer buffer, client::DocumentBuffer::Create(bytes.size()));
  std::memcpy(buffer.data().data(), bytes.data(), bytes.size());
  return buffer;
}

// Fetches and writes the results of a done job; prints where they went.
int FetchAndWrite(Client& c, Printer& p, uint64_t id, const std::string& dir) {
  auto files = c.Fetch(id);
  if (!files.ok()) return p.Error(files.status());
  auto written = WriteResultFiles(dir, *files);
  if (!written.ok())
    return p.Error(Status(StatusCode::kIoError, written.status().message()), "", kExitWriteError);
  if (p.json()) {
    p.Json({{"event", "written"}, {"job_id", id}, {"output_dir", dir}, {"files", *written}});
  } else {
    std::fprintf(stderr, "job %llu: %zu files written to %s\n", static_cast<unsigned long long>(id),
                 written->size(), dir.c_str());
  }
  return kExitOk;
}

int Submit(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  struct Submitted {
    uint64_t id;
    std::string name;
  };
  std::vector<Submitted> jobs;
  for (const std::string& file : o.files) {
    std::string name = !o.name.empty() ? o.name : (file == "-" ? "stdin" : BaseName(file));
    auto buffer = ReadDocument(file);
    if (!buffer.ok()) return p.Error(buffer.status());
    client::SubmitOptions so;
    so.name = name;
    so.detach = o.detach;
    so.backend = o.backend;
    so.first_page = o.first_page;
    so.last_page = o.last_page;
    auto id = c->Submit(std::move(*buffer), so);
    if (!id.ok()) return p.Error(id.status(), file);
    jobs.push_back({*id, name});
    if (o.detach) {
      if (p.json())
        p.Json({{"job_id", *id}, {"name", name}});
      else
        p.Line(std::to_string(*id));
    } else if (p.json()) {
      p.Json({{"event", "accepted"}, {"job_id", *id}, {"name", name}});
    } else if (!o.quiet) {
      std::fprintf(stderr, "job %llu: %s accepted\n", static_cast<unsigned long long>(*id), name.c_str());
    }
  }
  if (o.detach) return kExitOk;
  int exit_code = kExitOk;
  for (const Submitted& job : jobs) {
    // --stream: each page on stdout as it is parsed (Markdown, or a JSON line with --json).
    auto on_page = [&](const client::PageResult& page) {
      if (!o.stream) return;
      p.EndBar();
      if (p.json()) {
        nlohmann::json items = nlohmann::json::parse(page.content_list, nullptr, false);
        nlohmann::json event = {{"event", "page"},
                                {"job_id", job.id},
                                {"page_idx", page.page_index},
                                {"markdown", page.markdown},
                                {"content_list", items.is_discarded() ? nlohmann::json::array() : items}};
        if (!page.model_output.empty()) event["model_output"] = page.model_output;
        p.Json(event);
      } else {
        std::fwrite(page.markdown.data(), 1, page.markdown.size(), stdout);
        std::fputs("\n\n", stdout);
        std::fflush(stdout);
      }
    };
    auto final_status = c->Wait(
        job.id,
        [&](const client::Progress& pr) { p.Progress(job.name, job.id, pr.pages_done, pr.pages_total); }, -1,
        on_page);
    p.EndBar();
    if (!final_status.ok()) return p.Error(final_status.status());
    if (final_status->state != JobState::kDone) {
      if (p.json()) {
        p.Json({{"event", JobStateName(final_status->state)},
                {"job_id", job.id},
                {"error", final_status->error}});
      } else {
        std::fprintf(stderr, "mineructl: job %llu (%s) %s: %s\n", static_cast<unsigned long long>(job.id),
                     job.name.c_str(), JobStateName(final_status->state), final_status->error.c_str());
      }
      exit_code = kExitJobFailed;
      continue;
    }
    if (p.json()) p.Json({{"event", "done"}, {"job_id", job.id}, {"pages_total", final_status->pages_total}});
    std::string dir = o.output_dir.empty() ? "./" + job.name + ".mineru" : o.output_dir;
    int rc = FetchAndWrite(*c, p, job.id, dir);
    if (rc != kExitOk) return rc;
  }
  return exit_code;
}

int StatusCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  std::vector<JobStatus> jobs;
  for (uint64_t id : o.job_ids) {
    auto s = c->GetStatus(id);
    if (!s.ok()) return p.Error(s.status());
    jobs.push_back(*s);
  }
  if (p.json()) {
    for (const auto& s : jobs) p.Json(StatusJson(s));
  } else {
    PrintTable(p, jobs);
  }
  return kExitOk;
}

int ListCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  auto jobs = c->List(o.all);
  if (!jobs.ok()) return p.Error(jobs.status());
  if (p.json()) {
    for (const auto& s : *jobs) p.Json(StatusJson(s));
  } else {
    PrintTable(p, *jobs);
  }
  return kExitOk;
}

int WaitCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  int exit_code = kExitOk;
  for (uint64_t id : o.job_ids) {
    std::string label = "job " + std::to_string(id);
    auto s = c->Wait(
        id, [&](const client::Progress& pr) { p.Progress(label, id, pr.pages_done, pr.pages_total); },
        o.timeout_ms);
    p.EndBar();
    if (!s.ok()) return p.Error(s.status());
    if (p.json())
      p.Json(StatusJson(*s));
    else
      p.Line(std::to_string(id) + " " + JobStateName(s->state) + (s->error.empty() ? "" : ": " + s->error));
    if (s->state != JobState::kDone) exit_code = kExitJobFailed;
  }
  return exit_code;
}

int CancelCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  std::vector<uint64_t> cancelled;
  if (o.all) {
    auto ids = c->CancelAll();
    if (!ids.ok()) return p.Error(ids.status());
    cancelled = *ids;
  } else {
    for (uint64_t id : o.job_ids) {
      Status s = c->Cancel(id);
      if (!s.ok()) return p.Error(s);
      cancelled.push_back(id);
    }
  }
  if (p.json()) {
    p.Json({{"cancelled", cancelled}});
  } else {
    for (uint64_t id : cancelled) p.Line("cancelled " + std::to_string(id));
  }
  return kExitOk;
}

int FetchCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  return FetchAndWrite(*c, p, o.job_ids[0], o.output_dir);
}

int StatsCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  auto stats = c->Stats();
  if (!stats.ok()) return p.Error(stats.status());
  if (p.json()) {
    json tiers = json::array();
    for (const auto& t : stats->tiers) {
      tiers.push_back({{"tier", t.tier},
                       {"budget_bytes", t.budget_bytes},
                       {"used_bytes", t.used_bytes},
                       {"peak_bytes", t.peak_bytes},
                       {"units_resident", t.units_resident}});
    }
    p.Json({{"counters", stats->counters}, {"tiers", tiers}});
    return kExitOk;
  }
  for (const auto& [k, v] : stats->counters) {
    char line[256];
    std::snprintf(line, sizeof line, "%-28s %.15g", k.c_str(), v);
    p.Line(line);
  }
  for (const auto& t : stats->tiers) {
    p.Line("tier " + t.tier + ": " + FormatByteSize(t.used_bytes) + " used of " +
           FormatByteSize(t.budget_bytes) + " (peak " + FormatByteSize(t.peak_bytes) + "), " +
           std::to_string(t.units_resident) + " units");
  }
  return kExitOk;
}

json InfoJson(const client::DaemonInfo& i) {
  return {{"daemon_version", i.daemon_version},
          {"protocol_version", i.protocol_version},
          {"pid", i.pid},
          {"started_unix_ms", i.started_unix_ms},
          {"backend", i.backend},
          {"model_dir", i.model_dir},
          {"model", i.model},
          {"vram_budget_bytes", i.vram_budget_bytes},
          {"pinned_budget_bytes", i.pinned_budget_bytes},
          {"workers", i.workers},
          {"max_batch", i.max_batch},
          {"max_document_bytes", i.max_document_bytes},
          {"max_pages_per_document", i.max_pages_per_document},
          {"max_jobs_queued", i.max_jobs_queued},
          {"max_jobs_per_user", i.max_jobs_per_user}};
}

std::string BudgetText(uint64_t bytes) { return bytes == 0 ? "none" : FormatByteSize(bytes); }

int DaemonStatusCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  auto rtt = c->Ping();
  if (!rtt.ok()) return p.Error(rtt.status());
  auto stats = c->Stats();
  if (!stats.ok()) return p.Error(stats.status());
  auto info = c->Info();
  if (!info.ok() && info.status().code() != StatusCode::kUnimplemented) return p.Error(info.status());
  auto get = [&](const char* k) { return stats->counters.count(k) ? stats->counters.at(k) : 0.0; };
  if (p.json()) {
    json j = {{"running", true},
              {"socket", c->socket_path()},
              {"daemon_version", c->daemon_version()},
              {"peer_uid", c->peer_uid()},
              {"ping_us", *rtt},
              {"max_document_bytes", c->max_document_bytes()},
              {"counters", stats->counters}};
    if (info.ok()) {
      j["backend"] = info->backend;
      j["model_dir"] = info->model_dir;
      j["vram_budget_bytes"] = info->vram_budget_bytes;
      j["pinned_budget_bytes"] = info->pinned_budget_bytes;
    }
    p.Json(j);
    return kExitOk;
  }
  char line[512];
  std::snprintf(
      line, sizeof line,
      "minerud %s is running on %s\n  you are uid %u; ping %.0f us\n  jobs: %.0f running, %.0f queued; "
      "%.0f workers; uptime %.0f s",
      c->daemon_version().c_str(), c->socket_path().c_str(), c->peer_uid(), *rtt, get("jobs_running"),
      get("jobs_queued"), get("workers"), get("uptime_seconds"));
  p.Line(line);
  if (info.ok()) {
    p.Line("  backend " + info->backend +
           (info->model_dir.empty() ? std::string(" (no model)") : "; model " + info->model_dir));
    if (!info->model_dir.empty()) {
      p.Line("  VRAM budget " + BudgetText(info->vram_budget_bytes) + ", pinned budget " +
             BudgetText(info->pinned_budget_bytes));
    }
  }
  return kExitOk;
}

int InfoCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  auto info = c->Info();
  if (!info.ok()) return p.Error(info.status());
  if (p.json()) {
    json j = InfoJson(*info);
    j["socket"] = c->socket_path();
    p.Json(j);
    return kExitOk;
  }
  const client::DaemonInfo& i = *info;
  auto row = [&](const char* key, const std::string& value) {
    char line[1024];
    std::snprintf(line, sizeof line, "%-22s %s", key, value.c_str());
    p.Line(line);
  };
  row("socket", c->socket_path());
  row("version", i.daemon_version + " (protocol " + std::to_string(i.protocol_version) + ")");
  row("pid", std::to_string(i.pid));
  row("started", FormatTime(i.started_unix_ms));
  row("backend", i.backend);
  row("model_dir", i.model_dir.empty() ? "-" : i.model_dir);
  if (!i.model.empty()) row("model", i.model);
  row("vram_budget", BudgetText(i.vram_budget_bytes));
  row("pinned_budget", BudgetText(i.pinned_budget_bytes));
  row("workers", std::to_string(i.workers));
  row("max_batch", std::to_string(i.max_batch));
  row("max_document_size", FormatByteSize(i.max_document_bytes));
  row("max_pages", std::to_string(i.max_pages_per_document));
  row("max_jobs_queued", std::to_string(i.max_jobs_queued));
  row("max_jobs_per_user", std::to_string(i.max_jobs_per_user));
  return kExitOk;
}

int BudgetCmd(const CtlOptions& o, Printer& p) {
  auto c = Connect(o);
  if (!c.ok()) return p.Error(c.status());
  auto budget = c->SetVramBudget(o.vram_budget_bytes);
  if (!budget.ok()) return p.Error(budget.status());
  if (p.json()) {
    p.Json({{"vram_budget_bytes", *budget}});
  } else {
    p.Line("VRAM budget " + FormatByteSize(*budget));
  }
  return kExitOk;
}

}  // namespace

int RunCommand(const CtlOptions& o) {
  Printer p(o);
  switch (o.command) {
    case Command::kSubmit:
      return Submit(o, p);
    case Command::kStatus:
      return StatusCmd(o, p);
    case Command::kList:
      return ListCmd(o, p);
    case Command::kWait:
      return WaitCmd(o, p);
    case Command::kCancel:
      return CancelCmd(o, p);
    case Command::kFetch:
      return FetchCmd(o, p);
    case Command::kStats:
      return StatsCmd(o, p);
    case Command::kDaemonStatus:
      return DaemonStatusCmd(o, p);
    case Command::kInfo:
      return InfoCmd(o, p);
    case Command::kBudget:
      return BudgetCmd(o, p);
    case Command::kModelPull:
      return ModelPullCmd(o, p);
    case Command::kModelList:
      return ModelListCmd(o, p);
    case Command::kHelp:
    case Command::kVersion:
      break;
  }
  return kExitUsage;
}

}  // namespace mineru::ctl
