#include "daemon/request_handler.h"

#include "common/log.h"
#include "common/version.h"
#include "shm/result_record.h"
#include "shm/sealed_document.h"

namespace mineru::daemon {
namespace {

constexpr uint32_t kBusyRetryMs = 1000;

shm::JobState WireState(JobState s) {
  switch (s) {
    case JobState::kQueued:
      return shm::JobState::kQueued;
    case JobState::kRunning:
      return shm::JobState::kRunning;
    case JobState::kDone:
      return shm::JobState::kDone;
    case JobState::kFailed:
      return shm::JobState::kFailed;
    case JobState::kCancelled:
      return shm::JobState::kCancelled;
  }
  return shm::JobState::kFailed;
}

uint32_t Clamp32(int64_t v) { return v < 0 ? 0 : (v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v)); }

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A spooled output file as a ring record: images/X -> an image crop named X; the rest -> an output
// file with its role.
Result<std::vector<uint8_t>> ToRecord(uint64_t job_id, const OutputFile& f) {
  auto data = std::span(reinterpret_cast<const uint8_t*>(f.data.data()), f.data.size());
  constexpr std::string_view kImages = "images/";
  if (f.path.rfind(kImages, 0) == 0) {
    return shm::EncodeResultRecord(shm::ResultKind::kImageCrop, shm::OutputRole::kNoRole, job_id,
                                   shm::kNoPage, std::string_view(f.path).substr(kImages.size()), data);
  }
  shm::OutputRole role = shm::OutputRole::kMarkdown;
  if (EndsWith(f.path, "_content_list.json"))
    role = shm::OutputRole::kContentList;
  else if (EndsWith(f.path, "_middle.json"))
    role = shm::OutputRole::kMiddleJson;
  else if (EndsWith(f.path, "_model_output.txt"))
    role = shm::OutputRole::kModelOutput;
  else if (EndsWith(f.path, "_layout.pdf"))
    role = shm::OutputRole::kLayoutPdf;
  else if (!EndsWith(f.path, ".md"))
    return Internal("output file '" + f.path + "' has no known role");
  return shm::EncodeResultRecord(shm::ResultKind::kOutputFile, role, job_id, shm::kNoPage, f.path, data);
}

bool Wanted(uint32_t outputs, const OutputFile& f) {
  if (f.path.rfind("images/", 0) == 0) return outputs & shm::kOutputImages;
  if (EndsWith(f.path, "_content_list.json")) return outputs & shm::kOutputContentList;
  if (EndsWith(f.path, "_middle.json")) return outputs & shm::kOutputMiddleJson;
  if (EndsWith(f.path, "_model_output.txt")) return outputs & shm::kOutputModelOutput;
  if (EndsWith(f.path, ".md")) return outputs & shm::kOutputMarkdown;
  return true;  // the layout PDF comes with any fetch
}

}  // namespace

shm::JobInfo RequestHandler::ToWire(const JobInfo& info, const std::string& backend) {
  shm::JobInfo w;
  w.job_id = info.id;
  w.owner_uid = info.uid;
  w.state = WireState(info.state);
  w.document_name = info.name;
  w.backend = backend;
  w.pages_done = Clamp32(info.pages_done);
  w.pages_total = Clamp32(info.pages_total);
  w.submitted_unix_ms = info.submitted_ms;
  w.finished_unix_ms = info.finished_ms;
  w.document_bytes = info.document_bytes;
  if (info.state == JobState::kFailed || info.state == JobState::kCancelled) {
    w.error_code = info.error_code == StatusCode::kOk ? StatusCode::kInternal : info.error_code;
    w.error_message = info.error;
  }
  return w;
}

void RequestHandler::Error(Session& s, uint64_t request_id, const Status& status) {
  s.Send(shm::MakeErrorReply(request_id, status, status.code() == StatusCode::kBusy ? kBusyRetryMs : 0));
}

Result<JobInfo> RequestHandler::Visible(uid_t uid, uint64_t job_id) const {
  auto info = options_.scheduler->Find(job_id);
  if (!info || !access_.MayAccess(uid, info->uid)) return NotFound("no job " + std::to_string(job_id));
  return *info;
}

void RequestHandler::Handle(Session& s, shm::Message message, std::vector<UniqueFd> fds) {
  if (!s.hello_done() && !std::holds_alternative<shm::Hello>(message)) {
    Error(s, 0, FailedPrecondition("the first message must be Hello"));
    s.CloseAfterFlush();
    return;
  }
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, shm::Hello>) {
          OnHello(s, m);
        } else if constexpr (std::is_same_v<T, shm::SubmitRequest>) {
          OnSubmit(s, m, std::move(fds));
        } else if constexpr (std::is_same_v<T, shm::StatusRequest>) {
          OnStatus(s, m);
        } else if constexpr (std::is_same_v<T, shm::ListRequest>) {
          OnList(s, m);
        } else if constexpr (std::is_same_v<T, shm::CancelRequest>) {
          OnCancel(s, m);
        } else if constexpr (std::is_same_v<T, shm::FetchRequest>) {
          OnFetch(s, m);
        } else if constexpr (std::is_same_v<T, shm::StatsRequest>) {
          OnStats(s, m);
        } else if constexpr (std::is_same_v<T, shm::WatchRequest>) {
          OnWatch(s, m);
        } else if constexpr (std::is_same_v<T, shm::BudgetRequest>) {
          OnBudget(s, m);
        } else if constexpr (std::is_same_v<T, shm::InfoRequest>) {
          OnInfo(s, m);
        } else if constexpr (std::is_same_v<T, shm::Ping>) {
          s.Send(shm::Pong{m.nonce, m.padding});
        } else if constexpr (std::is_same_v<T, shm::Goodbye>) {
          s.CloseAfterFlush();
        } else {
          Error(s, 0,
                InvalidArgument(std::string("a client may not send ") + shm::MessageTypeName(T::kType)));
          s.CloseAfterFlush();
        }
      },
      message);
}

void RequestHandler::OnHello(Session& s, const shm::Hello& m) {
  if (s.hello_done()) {
    Error(s, 0, FailedPrecondition("Hello was already sent"));
    return;
  }
  if (m.min_version > shm::kProtocolVersion || m.max_version < shm::kProtocolVersion) {
    Error(s, 0,
          Unimplemented("this minerud speaks protocol version " + std::to_string(shm::kProtocolVersion) +
                        "; the client speaks " + std::to_string(m.min_version) + "-" +
                        std::to_string(m.max_version)));
    s.CloseAfterFlush();
    return;
  }
  shm::HelloReply reply;
  reply.daemon_version = MINERU_VERSION_STRING;
  reply.session_id = s.id();
  reply.peer_uid = s.peer().uid;
  reply.max_document_bytes = max_document_bytes_;
  reply.capabilities = shm::kCapZeroCopySubmit | shm::kCapWatchJobs | shm::kCapSetBudget | shm::kCapInfo;
  std::vector<UniqueFd> ring_fds;
  if (m.capabilities & shm::kCapResultRing) {
    uint64_t bytes = m.ring_bytes_wanted == 0 ? options_.ring_bytes : m.ring_bytes_wanted;
    bytes = std::clamp<uint64_t>(bytes, shm::kMinRingCapacity, 64ull << 20);
    Status created = s.CreateRing(bytes);
    auto dup = created.ok() ? s.ring()->DupFdsForConsumer() : Result<shm::RingFds>(created);
    if (!dup.ok()) {
      Error(s, 0, dup.status().WithContext("cannot create the result ring"));
      s.CloseAfterFlush();
      return;
    }
    reply.capabilities |= shm::kCapResultRing | (m.capabilities & shm::kCapPageResults);
    reply.ring_capacity_bytes = s.ring()->capacity();
    ring_fds.push_back(std::move(dup->data));
    ring_fds.push_back(std::move(dup->control));
    ring_fds.push_back(std::move(dup->data_event));
    ring_fds.push_back(std::move(dup->space_event));
  }
  s.set_capabilities(reply.capabilities);
  s.set_hello_done();
  s.Send(reply, std::move(ring_fds));
}

void RequestHandler::OnSubmit(Session& s, const shm::SubmitRequest& m, std::vector<UniqueFd> fds) {
  if (fds.size() != 1) {
    Error(s, m.request_id, InvalidArgument("Submit must carry exactly one fd (the sealed document)"));
    return;
  }
  if (m.media_type != "application/pdf") {
    Error(s, m.request_id,
          InvalidArgument("media type '" + m.media_type + "' is not supported (application/pdf)"));
    return;
  }
  if (m.backend != "auto" && m.backend != options_.backend_name) {
    Error(s, m.request_id,
          Unimplemented("backend '" + m.backend + "' is not loaded (this daemon runs " +
                        options_.backend_name + ")"));
    return;
  }
  auto document = shm::SealedDocument::Adopt(std::move(fds[0]), m.document_bytes, max_document_bytes_);
  if (!document.ok()) {
    Error(s, m.request_id, document.status());
    return;
  }
  // Limits now (counted from here); the durable write runs on the spool thread, the answer comes from
  // OnSpooled().
  auto reservation = options_.scheduler->Reserve(s.peer().uid, m.document_name, document->bytes().size(),
                                                 document::PageRange{m.first_page, m.last_page});
  if (!reservation.ok()) {
    Error(s, m.request_id, reservation.status());
    return;
  }
  options_.spool_writer->Enqueue(
      SpoolWriter::Task{s.id(), m.request_id, !m.detach, std::move(*reservation), std::move(*document)});
}

void RequestHandler::OnSpooled(Session* s, SpoolWriter::Completion& c) {
  // The job is durable: it runs whether or not its submitter is still there.
  if (c.job.ok()) {
    if (s != nullptr && !s->closing() && c.watch) s->watched_jobs().insert(c.job->id);
    options_.scheduler->Commit(*c.job, std::move(c.document));
  }
  if (s == nullptr || s->closing()) return;
  if (!c.job.ok()) {
    Error(*s, c.request_id, c.job.status());
    return;
  }
  shm::JobAccepted accepted;
  accepted.request_id = c.request_id;
  accepted.job_id = c.job->id;
  auto stats = options_.scheduler->Stats();
  accepted.queue_position = Clamp32(stats.queued > 0 ? stats.queued - 1 + stats.running : 0);
  s->Send(accepted);
}

void RequestHandler::OnStatus(Session& s, const shm::StatusRequest& m) {
  auto info = Visible(s.peer().uid, m.job_id);
  if (!info.ok()) {
    Error(s, m.request_id, info.status());
    return;
  }
  s.Send(shm::StatusReply{m.request_id, ToWire(*info, options_.backend_name)});
}

void RequestHandler::OnInfo(Session& s, const shm::InfoRequest& m) {
  shm::InfoReply reply = options_.info ? options_.info() : shm::InfoReply{};
  reply.request_id = m.request_id;
  if (reply.daemon_version.empty()) reply.daemon_version = MINERU_VERSION_STRING;
  if (reply.backend.empty()) reply.backend = options_.backend_name;
  s.Send(reply);
}

void RequestHandler::OnBudget(Session& s, const shm::BudgetRequest& m) {
  if (!access_.IsAdmin(s.peer().uid)) {
    Error(s, m.request_id, PermissionDenied("only root and the admin group may change the VRAM budget"));
    return;
  }
  Result<uint64_t> budget = options_.backend ? options_.backend->SetVramBudget(m.vram_budget_bytes)
                                             : Result<uint64_t>(Unimplemented("no backend"));
  if (!budget.ok()) {
    Error(s, m.request_id, budget.status());
    return;
  }
  MINERU_LOG(kInfo) << "uid " << s.peer().uid << " set the VRAM budget to " << *budget << " bytes";
  s.Send(shm::BudgetReply{m.request_id, *budget});
}

void RequestHandler::OnWatch(Session& s, const shm::WatchRequest& m) {
  auto info = Visible(s.peer().uid, m.job_id);
  if (!info.ok()) {
    Error(s, m.request_id, info.status());
    return;
  }
  // Loop thread: no event of the job is dispatched between this snapshot and the subscription.
  if (!IsFinal(info->state)) s.watched_jobs().insert(m.job_id);
  s.Send(shm::WatchReply{m.request_id, ToWire(*info, options_.backend_name)});
}

void RequestHandler::OnList(Session& s, const shm::ListRequest& m) {
  std::optional<uid_t> uid = s.peer().uid;
  if (m.all_users) {
    if (!access_.IsAdmin(s.peer().uid)) {
      Error(s, m.request_id, PermissionDenied("only root and the admin group may list every user's jobs"));
      return;
    }
    uid.reset();
  }
  shm::ListReply reply;
  reply.request_id = m.request_id;
  for (const JobInfo& info : options_.scheduler->List(uid)) {
    if (reply.jobs.size() >= shm::kMaxListItems) break;
    reply.jobs.push_back(ToWire(info, options_.backend_name));
  }
  s.Send(reply);
}

void RequestHandler::OnCancel(Session& s, const shm::CancelRequest& m) {
  shm::CancelReply reply;
  reply.request_id = m.request_id;
  if (m.all) {
    for (const JobInfo& info : options_.scheduler->List(s.peer().uid)) {
      if (!IsFinal(info.state) && options_.scheduler->Cancel(info.id).ok())
        reply.cancelled_job_ids.push_back(info.id);
    }
    s.Send(reply);
    return;
  }
  auto info = Visible(s.peer().uid, m.job_id);
  if (!info.ok()) {
    Error(s, m.request_id, info.status());
    return;
  }
  Status cancelled = options_.scheduler->Cancel(m.job_id);
  if (!cancelled.ok()) {
    Error(s, m.request_id, cancelled);
    return;
  }
  reply.cancelled_job_ids.push_back(m.job_id);
  s.Send(reply);
}

void RequestHandler::OnFetch(Session& s, const shm::FetchRequest& m) {
  auto info = Visible(s.peer().uid, m.job_id);
  if (!info.ok()) {
    Error(s, m.request_id, info.status());
    return;
  }
  if (s.ring() == nullptr) {
    Error(s, m.request_id,
          FailedPrecondition("fetching results needs a result ring (Hello with kCapResultRing)"));
    return;
  }
  auto files = options_.scheduler->Results(m.job_id, /*consume=*/false);
  if (!files.ok()) {
    Error(s, m.request_id, files.status());
    return;
  }
  std::vector<std::vector<uint8_t>> records;
  uint64_t bytes = 0;
  for (const OutputFile& f : *files) {
    if (!Wanted(m.outputs, f)) continue;
    auto record = ToRecord(m.job_id, f);
    if (!record.ok()) {
      Error(s, m.request_id, record.status());
      return;
    }
    bytes += f.data.size();
    records.push_back(std::move(*record));
  }
  shm::FetchReply reply;
  reply.request_id = m.request_id;
  reply.job_id = m.job_id;
  reply.first_record_sequence = s.records_queued_total();
  reply.record_count = static_cast<uint32_t>(records.size());
  reply.result_bytes = bytes;
  if (records.empty()) {
    s.Send(reply);
    return;
  }
  Scheduler* scheduler = options_.scheduler;
  uint64_t job_id = m.job_id;
  bool consume = m.outputs == shm::kAllOutputs;
  for (size_t i = 0; i < records.size(); ++i) {
    std::function<void()> then;
    if (i + 1 == records.size()) {
      // Every record is in the ring: tell the client, and drop the spooled results once all were taken.
      then = [&s, reply, scheduler, job_id, consume] {
        s.Send(reply);
        if (consume) scheduler->Results(job_id, /*consume=*/true).status().IgnoreError();
      };
    }
    s.QueueRecord(std::move(records[i]), std::move(then));
  }
}

void RequestHandler::OnStats(Session& s, const shm::StatsRequest& m) {
  SchedulerStats st = options_.scheduler->Stats();
  shm::StatsReply reply;
  reply.request_id = m.request_id;
  reply.counters = {
      {"jobs_queued", static_cast<double>(st.queued)},
      {"jobs_running", static_cast<double>(st.running)},
      {"jobs_done", static_cast<double>(st.done)},
      {"jobs_failed", static_cast<double>(st.failed)},
      {"jobs_cancelled", static_cast<double>(st.cancelled)},
      {"jobs_accepted_total", static_cast<double>(st.accepted_total)},
      {"jobs_rejected_busy_total", static_cast<double>(st.rejected_busy_total)},
      {"pages_parsed_total", static_cast<double>(st.pages_total)},
      {"workers", static_cast<double>(st.workers)},
  };
  if (options_.extra_counters) {
    for (auto& [k, v] : options_.extra_counters()) reply.counters[k] = v;
  }
  if (options_.backend) {
    BackendStats b = options_.backend->Stats();
    for (auto& [k, v] : b.counters) reply.counters[k] = v;
    for (const pipeline::TierStats& t : b.tiers) {
      reply.tiers.push_back({t.tier, t.budget_bytes, t.used_bytes, t.peak_bytes, t.units_resident});
    }
  }
  s.Send(reply);
}

void RequestHandler::Deliver(Session& s, const JobEvent& event) {
  const JobInfo& info = event.info;
  if (event.kind == JobEvent::Kind::kProgress) {
    s.Send(shm::PageProgress{info.id, Clamp32(info.pages_done), Clamp32(info.pages_total)});
    if (event.page && s.ring() != nullptr && (s.capabilities() & shm::kCapPageResults) != 0) {
      StreamPage(s, info.id, *event.page);
    }
    return;
  }
  if (info.state == JobState::kDone) {
    shm::JobDone done;
    done.job_id = info.id;
    done.pages_total = Clamp32(info.pages_total);
    done.elapsed_ms = static_cast<uint64_t>(std::max<int64_t>(0, info.finished_ms - info.submitted_ms));
    s.Send(done);
  } else {
    shm::JobFailed failed;
    failed.job_id = info.id;
    failed.code = info.error_code == StatusCode::kOk ? StatusCode::kInternal : info.error_code;
    failed.message = info.error;
    s.Send(failed);
  }
}

void RequestHandler::StreamPage(Session& s, uint64_t job_id, const PageOutput& page) {
  const auto bytes = [](const std::string& text) {
    return std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  };
  std::vector<std::pair<shm::ResultKind, const std::string*>> parts = {
      {shm::ResultKind::kPageMarkdown, &page.markdown},
      {shm::ResultKind::kContentListItems, &page.content_list}};
  if (!page.model_output.empty()) parts.emplace_back(shm::ResultKind::kModelOutput, &page.model_output);
  std::vector<std::vector<uint8_t>> records;
  shm::PageResultNotice notice;
  notice.job_id = job_id;
  notice.page_index = page.page_index;
  notice.first_record_sequence = s.records_queued_total();
  for (const auto& [kind, text] : parts) {
    auto record =
        shm::EncodeResultRecord(kind, shm::OutputRole::kNoRole, job_id, page.page_index, "", bytes(*text));
    if (!record.ok()) {
      MINERU_LOG(kWarning) << "job " << job_id << " page " << page.page_index + 1
                           << ": not streamed: " << record.status().ToString();
      return;
    }
    notice.result_bytes += text->size();
    records.push_back(std::move(*record));
  }
  notice.record_count = static_cast<uint32_t>(records.size());
  // The notice goes first: the client then reads the records as the ring lets them through (a page
  // may be larger than the ring), so neither side waits for the other.
  s.Send(notice);
  for (auto& r : records) s.QueueRecord(std::move(r));
}

}  // namespace mineru::daemon
