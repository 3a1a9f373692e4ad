// Session: one client connection on the event loop.
//
// Reads with recvmsg (fds travel with frames, which libuv's reads cannot receive) into a
// FrameAssembler, hands each decoded message to the owner's handler, and writes replies from an
// outbound queue with non-blocking sendmsg. Result bytes go into the session's result ring, written
// as space allows (the ring's space eventfd wakes the loop). Nothing here blocks: a client that stops
// reading fills its queue, and past `max_pending_bytes` the session is closed; everyone else carries on.
//
// Loop thread only. The owner (Server) closes a session with Close() and deletes it in on_closed.
#pragma once

#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/unique_fd.h"
#include "daemon/access_policy.h"
#include "shm/frame_assembler.h"
#include "shm/protocol.h"
#include "shm/ring_producer.h"

namespace mineru::daemon {

class Session {
 public:
  struct Callbacks {
    // A decoded message and the fds that came with it.
    std::function<void(Session&, shm::Message, std::vector<UniqueFd>)> on_message;
    // All ring records queued so far were written; runs the action queued with them.
    std::function<void(Session&)> on_closed;  // handles are closed; delete the session now
  };

  Session(uv_loop_t* loop, uint64_t id, UniqueFd fd, PeerCredentials peer, uint64_t max_pending_bytes,
          Callbacks callbacks);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts reading. Call once.
  Status Start();

  uint64_t id() const { return id_; }
  const PeerCredentials& peer() const { return peer_; }
  bool closing() const { return closing_; }
  bool hello_done() const { return hello_done_; }
  void set_hello_done() { hello_done_ = true; }
  // What the client said it can do (shm::Capability bits), as agreed at Hello.
  uint64_t capabilities() const { return capabilities_; }
  void set_capabilities(uint64_t capabilities) { capabilities_ = capabilities; }

  // Queues a message (with borrowed fds, duplicated here) for sending.
  void Send(const shm::Message& message, std::vector<UniqueFd> fds = {});
  // Closes the connection after what is queued has been sent (orderly) or at once.
  void CloseAfterFlush();
  void Close();

  // The result ring (created on Hello when the client can map one).
  Status CreateRing(uint64_t capacity_bytes);
  shm::RingProducer* ring() { return ring_ ? &*ring_ : nullptr; }
  // Queues an encoded result record for the ring; `then` runs once it (and every record before it) is
  // written. Records wait in order; the ring's back-pressure pauses them.
  void QueueRecord(std::vector<uint8_t> record, std::function<void()> then = {});
  uint64_t records_queued_total() const { return records_queued_total_; }

  // Jobs whose events this session follows.
  std::set<uint64_t>& watched_jobs() { return watched_jobs_; }

  uint64_t pending_bytes() const { return pending_bytes_; }

 private:
  struct OutFrame {
    std::vector<uint8_t> bytes;
    std::vector<UniqueFd> fds;
    uint64_t offset = 0;
  };
  struct OutRecord {
    std::vector<uint8_t> bytes;
    uint64_t offset = 0;
    std::function<void()> then;
  };

  static void OnSocketEvent(uv_poll_t* handle, int status, int events);
  static void OnRingSpace(uv_poll_t* handle, int status, int events);
  static void OnHandleClosed(uv_handle_t* handle);

  void ReadSome();
  void FlushFrames();
  void FlushRecords();
  void UpdateSocketPoll();
  void Fail(const Status& status);

  uv_loop_t* loop_;
  uint64_t id_;
  UniqueFd fd_;
  PeerCredentials peer_;
  uint64_t max_pending_bytes_;
  Callbacks callbacks_;
  uv_poll_t socket_poll_{};
  uv_poll_t ring_poll_{};
  bool ring_poll_active_ = false;
  int open_handles_ = 0;
  int socket_events_ = 0;
  bool closing_ = false;
  bool close_after_flush_ = false;
  bool hello_done_ = false;
  uint64_t capabilities_ = 0;
  shm::FrameAssembler assembler_;
  std::vector<uint8_t> read_buffer_;
  std::deque<OutFrame> out_frames_;
  std::deque<OutRecord> out_records_;
  uint64_t pending_bytes_ = 0;
  uint64_t records_queued_total_ = 0;
  std::optional<shm::RingProducer> ring_;
  std::set<uint64_t> watched_jobs_;
};

}  // namespace mineru::daemon
