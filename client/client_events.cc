// libmineru-client: job events for an app's own event loop (Client::event_fd, Watch, NextEvent).
#include <optional>

#include "client/client_impl.h"

namespace mineru::client {
namespace {

// The event an app sees for a job event from the daemon; reads a page's records from the ring.
Result<JobEvent> ToJobEvent(Client::Impl& impl, const shm::Message& m) {
  JobEvent event;
  if (auto* n = std::get_if<shm::PageResultNotice>(&m)) {
    event.kind = JobEvent::Kind::kPage;
    event.job_id = n->job_id;
    MINERU_ASSIGN_OR_RETURN(event.page, impl.TakePage(*n));
  } else if (auto* p = std::get_if<shm::PageProgress>(&m)) {
    event.kind = JobEvent::Kind::kProgress;
    event.job_id = p->job_id;
    event.pages_done = p->pages_done;
    event.pages_total = p->pages_total;
  } else if (auto* d = std::get_if<shm::JobDone>(&m)) {
    event.kind = JobEvent::Kind::kDone;
    event.job_id = d->job_id;
    event.pages_done = d->pages_total;
    event.pages_total = d->pages_total;
    impl.followed.erase(d->job_id);
  } else if (auto* f = std::get_if<shm::JobFailed>(&m)) {
    event.kind = JobEvent::Kind::kFailed;
    event.job_id = f->job_id;
    event.error_code = f->code;
    event.error = f->message;
    impl.followed.erase(f->job_id);
  } else {
    return Internal("not a job event");
  }
  return event;
}

}  // namespace

int Client::event_fd() const { return impl_->channel.fd(); }

Status Client::Watch(uint64_t job_id) {
  if ((impl_->hello.capabilities & shm::kCapWatchJobs) == 0) {
    return Unimplemented("this minerud cannot stream another connection's jobs (version " +
                         impl_->hello.daemon_version + ")");
  }
  shm::WatchRequest req{impl_->next_request_id++, job_id};
  return impl_->CallFor<shm::WatchReply>(req, req.request_id).status();
}

Result<std::optional<JobEvent>> Client::NextEvent(int64_t timeout_ms) {
  // Pages read while a Wait looked for another job's come first, then events kept by other calls.
  if (auto it = impl_->pages.begin(); it != impl_->pages.end()) {
    JobEvent event;
    event.kind = JobEvent::Kind::kPage;
    event.job_id = it->first;
    event.page = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty()) impl_->pages.erase(it);
    return std::optional<JobEvent>(std::move(event));
  }
  const Deadline deadline = timeout_ms < 0 ? Deadline::Never() : Deadline::InMillis(timeout_ms);
  while (impl_->events.empty()) {
    auto m = impl_->Receive(deadline);
    if (!m.ok()) {
      if (m.status().code() == StatusCode::kDeadlineExceeded) return std::optional<JobEvent>();
      return m.status();
    }
    if (auto* bye = std::get_if<shm::Goodbye>(&*m)) {
      impl_->broken = true;
      return Unavailable("minerud closed the connection: " + bye->reason);
    }
    // Anything else unsolicited (a late reply to a request that timed out) is dropped.
    if (Impl::IsJobEvent(*m)) impl_->events.push_back(std::move(*m));
  }
  shm::Message m = std::move(impl_->events.front());
  impl_->events.pop_front();
  MINERU_ASSIGN_OR_RETURN(JobEvent event, ToJobEvent(*impl_, m));
  return std::optional<JobEvent>(std::move(event));
}

}  // namespace mineru::client
