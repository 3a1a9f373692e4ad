// The C API (include/mineru/client_c.h): job status, lists, cancelling, events for an app's own
// event loop, and the daemon's stats.
#include <string>

#include "client/c_api_internal.h"

struct mineru_job_list {
  std::vector<mineru::client::JobStatus> jobs;
};

struct mineru_stats {
  std::vector<std::pair<std::string, double>> counters;  // sorted by name
  std::vector<mineru::client::DaemonStats::Tier> tiers;
};

namespace mineru::client::c_api {

mineru_job_status ToC(const JobStatus& s) {
  mineru_job_status c{};
  c.struct_size = sizeof c;
  c.job_id = s.id;
  c.owner_uid = s.owner_uid;
  c.state = static_cast<int>(s.state);
  c.pages_done = s.pages_done;
  c.pages_total = s.pages_total;
  c.submitted_unix_ms = s.submitted_unix_ms;
  c.finished_unix_ms = s.finished_unix_ms;
  c.document_bytes = s.document_bytes;
  c.error_code = -static_cast<int>(s.error_code);
  c.name = s.name.c_str();
  c.backend = s.backend.c_str();
  c.error = s.error.c_str();
  return c;
}

}  // namespace mineru::client::c_api

namespace {

using namespace mineru::client::c_api;  // NOLINT(google-build-using-namespace): this file implements it
using mineru::client::JobEvent;

int EventType(JobEvent::Kind kind) {
  switch (kind) {
    case JobEvent::Kind::kProgress:
      return MINERU_EVENT_PROGRESS;
    case JobEvent::Kind::kPage:
      return MINERU_EVENT_PAGE;
    case JobEvent::Kind::kDone:
      return MINERU_EVENT_DONE;
    case JobEvent::Kind::kFailed:
      return MINERU_EVENT_FAILED;
  }
  return 0;
}

}  // namespace

extern "C" {

int mineru_client_status(mineru_client* client, uint64_t job_id, mineru_job_status* status) noexcept {
  if (client == nullptr || status == nullptr || status->struct_size < kJobStatusV1)
    return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    auto s = client->client.GetStatus(job_id);
    if (!s.ok()) return Fail(client, s.status());
    client->last_status = std::move(*s);
    return WriteSized(ToC(client->last_status), kJobStatusV1, status);
  });
}

int mineru_client_list(mineru_client* client, int all_users, mineru_job_list** out) noexcept {
  if (client == nullptr || out == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  return Guard(client, [&] {
    auto jobs = client->client.List(all_users != 0);
    if (!jobs.ok()) return Fail(client, jobs.status());
    *out = new mineru_job_list{std::move(*jobs)};
    return 0;
  });
}

size_t mineru_job_list_count(const mineru_job_list* list) noexcept {
  return list == nullptr ? 0 : list->jobs.size();
}

int mineru_job_list_get(const mineru_job_list* list, size_t index, mineru_job_status* status) noexcept {
  if (list == nullptr || index >= list->jobs.size()) return -MINERU_ERR_OUT_OF_RANGE;
  return WriteSized(ToC(list->jobs[index]), kJobStatusV1, status);
}

void mineru_job_list_free(mineru_job_list* list) noexcept { delete list; }

int mineru_client_cancel(mineru_client* client, uint64_t job_id) noexcept {
  if (client == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    mineru::Status s = client->client.Cancel(job_id);
    return s.ok() ? 0 : Fail(client, s);
  });
}

int mineru_client_cancel_all(mineru_client* client, uint64_t* job_ids, size_t capacity,
                             size_t* count) noexcept {
  if (client == nullptr || (job_ids == nullptr && capacity > 0)) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    auto ids = client->client.CancelAll();
    if (!ids.ok()) return Fail(client, ids.status());
    for (size_t i = 0; i < ids->size() && i < capacity; ++i) job_ids[i] = (*ids)[i];
    if (count != nullptr) *count = ids->size();
    return 0;
  });
}

int mineru_client_fd(const mineru_client* client) noexcept {
  return client == nullptr ? -MINERU_ERR_INVALID_ARGUMENT : client->client.event_fd();
}

int mineru_client_watch(mineru_client* client, uint64_t job_id) noexcept {
  if (client == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    mineru::Status s = client->client.Watch(job_id);
    return s.ok() ? 0 : Fail(client, s);
  });
}

int mineru_client_next_event(mineru_client* client, int64_t timeout_ms, mineru_event* event) noexcept {
  if (client == nullptr || event == nullptr || event->struct_size < kEventV1)
    return -MINERU_ERR_INVALID_ARGUMENT;
  return Guard(client, [&] {
    auto next = client->client.NextEvent(timeout_ms);
    if (!next.ok()) return Fail(client, next.status());
    if (!next->has_value()) return 0;
    JobEvent& e = client->last_event;
    e = std::move(**next);
    mineru_event c{};
    c.struct_size = sizeof c;
    c.type = EventType(e.kind);
    c.job_id = e.job_id;
    c.pages_done = e.pages_done;
    c.pages_total = e.pages_total;
    c.error_code = -static_cast<int>(e.error_code);
    c.error = e.error.c_str();
    if (e.kind == JobEvent::Kind::kPage) {
      const mineru::client::PageResult& r = e.page;
      client->last_page = mineru_page{r.job_id,
                                      r.page_index,
                                      r.markdown.data(),
                                      r.markdown.size(),
                                      r.content_list.data(),
                                      r.content_list.size(),
                                      r.model_output.data(),
                                      r.model_output.size()};
      c.page = &client->last_page;
    }
    const int rc = WriteSized(c, kEventV1, event);
    return rc < 0 ? rc : 1;
  });
}

int mineru_client_stats(mineru_client* client, mineru_stats** out) noexcept {
  if (client == nullptr || out == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  *out = nullptr;
  return Guard(client, [&] {
    auto stats = client->client.Stats();
    if (!stats.ok()) return Fail(client, stats.status());
    *out = new mineru_stats{{stats->counters.begin(), stats->counters.end()}, std::move(stats->tiers)};
    return 0;
  });
}

size_t mineru_stats_counter_count(const mineru_stats* stats) noexcept {
  return stats == nullptr ? 0 : stats->counters.size();
}

int mineru_stats_counter_get(const mineru_stats* stats, size_t index, const char** name,
                             double* value) noexcept {
  if (stats == nullptr || index >= stats->counters.size()) return -MINERU_ERR_OUT_OF_RANGE;
  if (name != nullptr) *name = stats->counters[index].first.c_str();
  if (value != nullptr) *value = stats->counters[index].second;
  return 0;
}

int mineru_stats_counter(const mineru_stats* stats, const char* name, double* value) noexcept {
  if (stats == nullptr || name == nullptr) return -MINERU_ERR_INVALID_ARGUMENT;
  for (const auto& [n, v] : stats->counters) {
    if (n == name) {
      if (value != nullptr) *value = v;
      return 0;
    }
  }
  return -MINERU_ERR_NOT_FOUND;
}

size_t mineru_stats_tier_count(const mineru_stats* stats) noexcept {
  return stats == nullptr ? 0 : stats->tiers.size();
}

int mineru_stats_tier_get(const mineru_stats* stats, size_t index, mineru_tier_stats* tier) noexcept {
  if (stats == nullptr || index >= stats->tiers.size()) return -MINERU_ERR_OUT_OF_RANGE;
  const auto& t = stats->tiers[index];
  mineru_tier_stats c{};
  c.struct_size = sizeof c;
  c.tier = t.tier.c_str();
  c.budget_bytes = t.budget_bytes;
  c.used_bytes = t.used_bytes;
  c.peak_bytes = t.peak_bytes;
  c.units_resident = t.units_resident;
  return WriteSized(c, kTierStatsV1, tier);
}

void mineru_stats_free(mineru_stats* stats) noexcept { delete stats; }

}  // extern "C"
