#include "daemon/session.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "common/syscall.h"
#include "shm/fd_passing.h"
#include "shm/frame.h"

namespace mineru::daemon {
namespace {

constexpr size_t kReadChunkBytes = 64 * 1024;
constexpr int kReadsPerWakeup = 16;     // then yield to other sessions
constexpr uint32_t kMaxFdsPerRead = 4;  // a Submit carries one; more is a flood

// One non-blocking sendmsg of bytes[offset..] (fds with the first byte). Returns bytes sent, 0 when
// the socket is full, or an error.
Result<uint64_t> SendSome(int fd, const std::vector<uint8_t>& bytes, uint64_t offset,
                          const std::vector<UniqueFd>& fds) {
  iovec iov{const_cast<uint8_t*>(bytes.data()) + offset, bytes.size() - offset};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control;
  if (offset == 0 && !fds.empty()) {
    control.resize(CMSG_SPACE(sizeof(int) * fds.size()));
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    for (size_t i = 0; i < fds.size(); ++i) {
      int v = fds[i].get();
      std::memcpy(CMSG_DATA(c) + i * sizeof(int), &v, sizeof v);
    }
  }
  ssize_t n = RetryEintr([&] { return ::sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL); });
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return uint64_t{0};
    if (errno == EPIPE || errno == ECONNRESET) return Unavailable("client went away");
    return ErrnoStatus(errno, "sendmsg");
  }
  return static_cast<uint64_t>(n);
}

}  // namespace

Session::Session(uv_loop_t* loop, uint64_t id, UniqueFd fd, PeerCredentials peer, uint64_t max_pending_bytes,
                 Callbacks callbacks)
    : loop_(loop),
      id_(id),
      fd_(std::move(fd)),
      peer_(peer),
      max_pending_bytes_(max_pending_bytes),
      callbacks_(std::move(callbacks)),
      read_buffer_(kReadChunkBytes) {}

Session::~Session() = default;

Status Session::Start() {
  int rc = uv_poll_init_socket(loop_, &socket_poll_, fd_.get());
  if (rc != 0) return Internal(std::string("uv_poll_init_socket: ") + uv_strerror(rc));
  socket_poll_.data = this;
  ++open_handles_;
  UpdateSocketPoll();
  return Status::Ok();
}

void Session::UpdateSocketPoll() {
  if (closing_) return;
  int events = UV_READABLE | UV_DISCONNECT;
  if (close_after_flush_) events = UV_DISCONNECT;
  if (!out_frames_.empty()) events |= UV_WRITABLE;
  if (events == socket_events_) return;
  socket_events_ = events;
  uv_poll_start(&socket_poll_, events, &Session::OnSocketEvent);
}

void Session::OnSocketEvent(uv_poll_t* handle, int status, int events) {
  auto* self = static_cast<Session*>(handle->data);
  if (self->closing_) return;
  if (status < 0) {
    self->Close();
    return;
  }
  if (events & UV_WRITABLE) self->FlushFrames();
  if (!self->closing_ && (events & UV_READABLE)) self->ReadSome();
  if (!self->closing_ && (events & UV_DISCONNECT) && !(events & UV_READABLE)) self->Close();
}

void Session::ReadSome() {
  for (int i = 0; i < kReadsPerWakeup && !closing_ && !close_after_flush_; ++i) {
    auto got = shm::RecvWithFds(fd_.get(), read_buffer_, kMaxFdsPerRead);
    if (!got.ok()) {
      Fail(got.status());
      return;
    }
    if (got->would_block) return;
    if (got->eof) {
      Close();  // a truncated frame is just dropped with the connection
      return;
    }
    Status fed = assembler_.Feed(std::span(read_buffer_.data(), got->bytes), std::move(got->fds));
    if (!fed.ok()) {
      Fail(fed);
      return;
    }
    for (;;) {
      auto frame = assembler_.Pop();
      if (!frame.ok()) {
        Fail(frame.status());
        return;
      }
      if (!frame->has_value()) break;
      auto message = shm::DecodeFrame(**frame);
      if (!message.ok()) {
        Fail(message.status());
        return;
      }
      callbacks_.on_message(*this, std::move(*message), std::move((*frame)->fds));
      if (closing_ || close_after_flush_) return;
    }
  }
}

void Session::Fail(const Status& status) {
  if (closing_) return;
  if (status.code() == StatusCode::kUnavailable) {
    Close();
    return;
  }
  Send(shm::MakeErrorReply(0, status));
  CloseAfterFlush();
}

void Session::Send(const shm::Message& message, std::vector<UniqueFd> fds) {
  if (closing_) return;
  OutFrame frame;
  frame.bytes = shm::EncodeFrame(message, static_cast<uint32_t>(fds.size()));
  frame.fds = std::move(fds);
  pending_bytes_ += frame.bytes.size();
  out_frames_.push_back(std::move(frame));
  if (pending_bytes_ > max_pending_bytes_) {
    // A client that does not read its replies loses its connection, not everyone else's service.
    Close();
    return;
  }
  FlushFrames();
}

void Session::FlushFrames() {
  while (!out_frames_.empty() && !closing_) {
    OutFrame& f = out_frames_.front();
    auto sent = SendSome(fd_.get(), f.bytes, f.offset, f.fds);
    if (!sent.ok()) {
      Close();
      return;
    }
    if (*sent == 0) break;
    if (f.offset == 0) f.fds.clear();  // the kernel took them with the first byte
    f.offset += *sent;
    pending_bytes_ -= *sent;
    if (f.offset == f.bytes.size()) out_frames_.pop_front();
  }
  if (closing_) return;
  if (out_frames_.empty() && close_after_flush_) {
    Close();
    return;
  }
  UpdateSocketPoll();
}

void Session::CloseAfterFlush() {
  close_after_flush_ = true;
  if (out_frames_.empty()) {
    Close();
  } else {
    UpdateSocketPoll();
  }
}

Status Session::CreateRing(uint64_t capacity_bytes) {
  shm::RingOptions options;
  options.capacity_bytes = capacity_bytes;
  MINERU_ASSIGN_OR_RETURN(shm::RingProducer ring, shm::RingProducer::Create(options));
  ring_.emplace(std::move(ring));
  int rc = uv_poll_init(loop_, &ring_poll_, ring_->space_event_fd());
  if (rc != 0) return Internal(std::string("uv_poll_init: ") + uv_strerror(rc));
  ring_poll_.data = this;
  ++open_handles_;
  return Status::Ok();
}

void Session::QueueRecord(std::vector<uint8_t> record, std::function<void()> then) {
  if (closing_) return;
  ++records_queued_total_;
  out_records_.push_back(OutRecord{std::move(record), 0, std::move(then)});
  FlushRecords();
}

void Session::OnRingSpace(uv_poll_t* handle, int status, int /*events*/) {
  auto* self = static_cast<Session*>(handle->data);
  if (self->closing_) return;
  if (status < 0) {
    self->Close();
    return;
  }
  self->ring_->ConsumeSpaceWakeup();
  self->FlushRecords();
}

void Session::FlushRecords() {
  if (!ring_) {
    // No ring: records have nowhere to go; the handler refuses fetches before queueing any.
    out_records_.clear();
    return;
  }
  while (!out_records_.empty() && !closing_) {
    OutRecord& r = out_records_.front();
    if (r.offset < r.bytes.size()) {
      auto wrote = ring_->TryWrite(r.bytes, &r.offset);
      if (!wrote.ok()) {
        Fail(wrote.status());
        return;
      }
    }
    if (r.offset == r.bytes.size()) {
      auto then = std::move(r.then);
      out_records_.pop_front();
      if (then) then();
      continue;
    }
    // Full: wait for the consumer to make room.
    if (ring_->ArmSpaceWakeup()) continue;
    if (!ring_poll_active_) {
      uv_poll_start(&ring_poll_, UV_READABLE, &Session::OnRingSpace);
      ring_poll_active_ = true;
    }
    return;
  }
  if (ring_poll_active_ && out_records_.empty()) {
    uv_poll_stop(&ring_poll_);
    ring_poll_active_ = false;
  }
}

void Session::Close() {
  if (closing_) return;
  closing_ = true;
  out_frames_.clear();
  out_records_.clear();
  if (ring_) ring_->Close();
  uv_close(reinterpret_cast<uv_handle_t*>(&socket_poll_), &Session::OnHandleClosed);
  if (ring_) uv_close(reinterpret_cast<uv_handle_t*>(&ring_poll_), &Session::OnHandleClosed);
}

void Session::OnHandleClosed(uv_handle_t* handle) {
  auto* self = static_cast<Session*>(handle->data);
  if (--self->open_handles_ == 0) {
    self->fd_.reset();
    self->callbacks_.on_closed(*self);  // may delete `self`
  }
}

}  // namespace mineru::daemon
