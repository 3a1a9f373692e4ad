// Client::Impl: the state behind a mineru::client::Client (the control channel, the result ring,
// events and ring records kept for later calls), shared by client.cc and client_events.cc.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "mineru/client.h"
#include "shm/channel.h"
#include "shm/frame.h"
#include "shm/result_record.h"
#include "shm/ring_consumer.h"

namespace mineru::client {

inline JobState FromWire(shm::JobState s) {
  switch (s) {
    case shm::JobState::kQueued:
      return JobState::kQueued;
    case shm::JobState::kRunning:
      return JobState::kRunning;
    case shm::JobState::kDone:
      return JobState::kDone;
    case shm::JobState::kFailed:
      return JobState::kFailed;
    case shm::JobState::kCancelled:
      return JobState::kCancelled;
  }
  return JobState::kFailed;
}

inline JobStatus FromWire(const shm::JobInfo& w) {
  JobStatus s;
  s.id = w.job_id;
  s.owner_uid = w.owner_uid;
  s.state = FromWire(w.state);
  s.name = w.document_name;
  s.backend = w.backend;
  s.pages_done = w.pages_done;
  s.pages_total = w.pages_total;
  s.submitted_unix_ms = w.submitted_unix_ms;
  s.finished_unix_ms = w.finished_unix_ms;
  s.document_bytes = w.document_bytes;
  s.error_code = w.error_code;
  s.error = w.error_message;
  return s;
}

inline Status FromErrorReply(const shm::ErrorReply& e) {
  return Status(e.code == StatusCode::kOk ? StatusCode::kInternal : e.code, e.message);
}

// Hidden: not part of the shared library's API, though Client (which declares it) is.
struct __attribute__((visibility("hidden"))) Client::Impl {
  shm::Channel channel;
  std::optional<shm::RingConsumer> ring;
  shm::HelloReply hello;
  uint64_t next_request_id = 1;
  // Job events that arrived while waiting for something else, in order.
  std::deque<shm::Message> events;
  // Ring records read while looking for others (by ring sequence), and streamed pages of jobs not
  // being waited for yet.
  std::map<uint64_t, std::vector<uint8_t>> unclaimed_records;
  std::map<uint64_t, std::deque<PageResult>> pages;
  std::set<uint64_t> followed;  // jobs submitted here, not detached: their events come here
  std::string socket_path;      // where this connection went
  bool broken = false;

  explicit Impl(shm::Channel c) : channel(std::move(c)) {}

  static bool IsJobEvent(const shm::Message& m) {
    return std::holds_alternative<shm::PageProgress>(m) || std::holds_alternative<shm::JobDone>(m) ||
           std::holds_alternative<shm::JobFailed>(m) || std::holds_alternative<shm::PageResultNotice>(m);
  }

  // The ring record with sequence `seq`: taken from the unclaimed ones, or read (keeping the records
  // before it as unclaimed). The daemon announces records only once they are in the ring.
  Result<std::vector<uint8_t>> RecordAt(uint64_t seq) {
    if (auto it = unclaimed_records.find(seq); it != unclaimed_records.end()) {
      std::vector<uint8_t> r = std::move(it->second);
      unclaimed_records.erase(it);
      return r;
    }
    if (!ring) return DataLoss("minerud announced a page result, but this connection has no ring");
    if (ring->records_read() > seq) return DataLoss("a page result record was lost from the ring");
    const Deadline deadline = Deadline::InMillis(30'000);
    std::vector<uint8_t> record;
    while (ring->records_read() <= seq) {
      const uint64_t at = ring->records_read();
      MINERU_RETURN_IF_ERROR(ring->Read(&record, deadline, channel.fd()));
      if (at == seq) return record;
      unclaimed_records.emplace(at, std::move(record));
    }
    return DataLoss("a page result record was lost from the ring");
  }

  // Reads the records a PageResultNotice announces into one PageResult.
  Result<PageResult> TakePage(const shm::PageResultNotice& n) {
    PageResult page;
    page.job_id = n.job_id;
    page.page_index = n.page_index;
    for (uint64_t seq = n.first_record_sequence; seq < n.first_record_sequence + n.record_count; ++seq) {
      MINERU_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, RecordAt(seq));
      MINERU_ASSIGN_OR_RETURN(shm::ResultRecordView view, shm::ParseResultRecord(bytes));
      if (view.job_id != n.job_id || view.page_index != n.page_index) {
        return DataLoss("a page result record does not belong to the page announced");
      }
      std::string text(view.data.begin(), view.data.end());
      switch (view.kind) {
        case shm::ResultKind::kPageMarkdown:
          page.markdown = std::move(text);
          break;
        case shm::ResultKind::kContentListItems:
          page.content_list = std::move(text);
          break;
        case shm::ResultKind::kModelOutput:
          page.model_output = std::move(text);
          break;
        default:
          return DataLoss("a page result record of an unexpected kind");
      }
    }
    return page;
  }

  Status Send(const shm::Message& m, std::span<const int> fds = {}) {
    if (broken) return Unavailable("the connection to minerud was lost");
    // The daemon closes a connection that sends an invalid frame; refuse it here instead.
    MINERU_RETURN_IF_ERROR(shm::ValidateMessage(m));
    Status s = channel.Send(m, fds, Deadline::InMillis(30'000));
    // A message refused before sending (a bad field) leaves the connection intact.
    if (!s.ok() && s.code() != StatusCode::kInvalidArgument && s.code() != StatusCode::kResourceExhausted) {
      broken = true;
    }
    return s;
  }

  Result<shm::Message> Receive(Deadline deadline) {
    if (broken) return Unavailable("the connection to minerud was lost");
    auto got = channel.Receive(deadline);
    if (!got.ok()) {
      if (got.status().code() != StatusCode::kDeadlineExceeded) broken = true;
      if (got.status().code() == StatusCode::kUnavailable) {
        return Unavailable("minerud closed the connection");
      }
      return got.status();
    }
    return std::move(got->message);
  }

  // Waits for the reply to `request_id` (an ErrorReply for it becomes its Status); job events that
  // arrive meanwhile are kept for Wait().
  Result<shm::Message> Call(const shm::Message& request, uint64_t request_id, std::span<const int> fds = {}) {
    MINERU_RETURN_IF_ERROR(Send(request, fds));
    for (;;) {
      MINERU_ASSIGN_OR_RETURN(shm::Message m, Receive(Deadline::InMillis(120'000)));
      if (IsJobEvent(m)) {
        events.push_back(std::move(m));
        continue;
      }
      if (auto* e = std::get_if<shm::ErrorReply>(&m)) {
        if (e->request_id == request_id || e->request_id == 0) return FromErrorReply(*e);
        continue;
      }
      if (std::holds_alternative<shm::Goodbye>(m)) {
        broken = true;
        return Unavailable("minerud closed the connection: " + std::get<shm::Goodbye>(m).reason);
      }
      bool matches = std::visit(
          [&](const auto& v) {
            if constexpr (requires { v.request_id; }) return v.request_id == request_id;
            return false;
          },
          m);
      if (matches) return m;
    }
  }

  template <typename Reply>
  Result<Reply> CallFor(const shm::Message& request, uint64_t request_id, std::span<const int> fds = {}) {
    MINERU_ASSIGN_OR_RETURN(shm::Message m, Call(request, request_id, fds));
    if (auto* r = std::get_if<Reply>(&m)) return std::move(*r);
    broken = true;
    return DataLoss(std::string("minerud answered with an unexpected ") +
                    shm::MessageTypeName(shm::TypeOf(m)));
  }

  Result<uint64_t> SubmitFd(int fd, uint64_t size, const SubmitOptions& options) {
    shm::SubmitRequest req;
    req.request_id = next_request_id++;
    req.document_name = options.name;
    req.document_bytes = size;
    req.outputs = shm::kAllOutputs;
    req.backend = options.backend;
    req.first_page = options.first_page;
    req.last_page = options.last_page;
    req.detach = options.detach;
    int fds[1] = {fd};
    MINERU_ASSIGN_OR_RETURN(shm::JobAccepted a, CallFor<shm::JobAccepted>(req, req.request_id, fds));
    if (!options.detach) followed.insert(a.job_id);
    return a.job_id;
  }
};

}  // namespace mineru::client
