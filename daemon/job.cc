#include "daemon/job.h"

#include <nlohmann/json.hpp>

namespace mineru::daemon {

std::string_view JobStateName(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

Result<JobState> ParseJobState(std::string_view name) {
  for (JobState s :
       {JobState::kQueued, JobState::kRunning, JobState::kDone, JobState::kFailed, JobState::kCancelled}) {
    if (JobStateName(s) == name) return s;
  }
  return InvalidArgument("unknown job state '" + std::string(name) + "'");
}

Status ValidateJobName(std::string_view name) {
  if (name.empty() || name.size() > 255) return InvalidArgument("document name must be 1-255 bytes");
  if (name == "." || name == "..") return InvalidArgument("document name must not be '.' or '..'");
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (c == '/' || u < 0x20 || u == 0x7f) {
      return InvalidArgument("document name must be a plain file name (no '/', no control characters)");
    }
  }
  return Status::Ok();
}

std::string JobInfoToJson(const JobInfo& info) {
  nlohmann::json j = {
      {"id", info.id},
      {"uid", info.uid},
      {"name", info.name},
      {"state", JobStateName(info.state)},
      {"document_bytes", info.document_bytes},
      {"first_page", info.pages.first},
      {"last_page", info.pages.last},
      {"pages_done", info.pages_done},
      {"pages_total", info.pages_total},
      {"submitted_ms", info.submitted_ms},
      {"finished_ms", info.finished_ms},
      {"attempts", info.attempts},
      {"error_code", static_cast<int>(info.error_code)},
      {"error", info.error},
      {"results_fetched", info.results_fetched},
  };
  return j.dump();
}

Result<JobInfo> JobInfoFromJson(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return DataLoss("job record is not a JSON object");
  JobInfo info;
  auto get = [&](const char* key, auto* out) -> bool {
    auto it = j.find(key);
    if (it == j.end()) return false;
    using T = std::remove_pointer_t<decltype(out)>;
    if constexpr (std::is_same_v<T, std::string>) {
      if (!it->is_string()) return false;
      *out = it->template get<std::string>();
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!it->is_boolean()) return false;
      *out = it->template get<bool>();
    } else {
      if (!it->is_number_integer()) return false;
      *out = it->template get<T>();
    }
    return true;
  };
  std::string state;
  int error_code = 0;
  bool ok = get("id", &info.id) && get("uid", &info.uid) && get("name", &info.name) && get("state", &state) &&
            get("document_bytes", &info.document_bytes) && get("pages_done", &info.pages_done) &&
            get("pages_total", &info.pages_total) && get("submitted_ms", &info.submitted_ms) &&
            get("finished_ms", &info.finished_ms) && get("attempts", &info.attempts) &&
            get("error_code", &error_code) && get("error", &info.error) &&
            get("results_fetched", &info.results_fetched);
  if (!ok) return DataLoss("job record lacks a field or has one of the wrong type");
  // The page range came later: a record without it means the whole document.
  if (j.contains("first_page") || j.contains("last_page")) {
    if (!get("first_page", &info.pages.first) || !get("last_page", &info.pages.last) ||
        info.pages.first > info.pages.last) {
      return DataLoss("job record has a bad page range");
    }
  }
  MINERU_ASSIGN_OR_RETURN(info.state, ParseJobState(state));
  if (error_code < 0 || error_code > static_cast<int>(StatusCode::kInternal)) {
    return DataLoss("job record has an unknown error code");
  }
  info.error_code = static_cast<StatusCode>(error_code);
  if (info.id == 0) return DataLoss("job record has id 0");
  return info;
}

}  // namespace mineru::daemon
