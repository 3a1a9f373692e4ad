// The control-channel protocol between libmineru-client and minerud: one message struct per frame.
//
// A frame on the Unix stream socket is a fixed 24-byte FrameHeader (shm/frame.h) followed by the
// message serialised with cereal into a bounded binary archive (shm/wire_archive.h). The header names
// the message type and how many file descriptors travel with the frame (SCM_RIGHTS on the sendmsg that
// carries the frame's first byte). Every field a peer sends is checked after decoding
// (ValidateMessage in shm/frame.h): enum values in range, string lengths capped, page ranges ordered.
//
// Conversation:
//   client                                   daemon
//   Hello                       ─────────►
//                               ◄─────────   HelloReply  + 4 fds (result ring: RingFds order)
//   Submit       + 1 fd (sealed memfd) ───►
//                               ◄─────────   JobAccepted | ErrorReply (busy, permission, bad input)
//                               ◄─────────   PageProgress*, PageResultNotice*, JobDone | JobFailed
//   StatusRequest/ListRequest/CancelRequest/FetchRequest/StatsRequest/Ping
//                               ◄─────────   the matching reply | ErrorReply
//   WatchRequest (only when HelloReply has kCapWatchJobs) ─►
//                               ◄─────────   WatchReply | ErrorReply (kNotFound: "no job N")
//                               ◄─────────   PageProgress*, JobDone | JobFailed  (as for a submit)
//   BudgetRequest (only when HelloReply has kCapSetBudget) ─►
//                               ◄─────────   BudgetReply | ErrorReply (permission, no model, too small)
//   InfoRequest (only when HelloReply has kCapInfo) ─►
//                               ◄─────────   InfoReply
// Requests carry a client-chosen `request_id` echoed in the reply. Job events are unsolicited and
// carry the `job_id` the daemon assigned in JobAccepted. Result bytes never travel on the socket:
// they are records in the session's result ring (shm/result_record.h); a PageResultNotice tells the
// client which ring sequence numbers belong to a page.
//
// Stability: the numeric values of MessageType, OutputKind, JobState and the field order of every
// struct are the wire format of kProtocolVersion. Changing any of them means a new version. A message
// added later gets the next MessageType value and a Capability bit; a peer sends it only when the
// other side announced that bit in the handshake, so older peers (which refuse unknown types) never
// see it and the version stays (WatchRequest/WatchReply: kCapWatchJobs; InfoRequest/InfoReply: kCapInfo).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"

namespace mineru::shm {

inline constexpr uint32_t kFrameMagic = 0x5552'4D46;  // bytes "FMRU" little-endian: 'F','M','R','U'
inline constexpr uint16_t kProtocolVersion = 1;

// Limits a receiver enforces before it allocates anything.
inline constexpr uint64_t kMaxFramePayloadBytes = 4ull << 20;  // control messages are small
inline constexpr uint32_t kMaxFdsPerFrame = 253;               // the kernel's SCM_MAX_FD
inline constexpr uint64_t kMaxStringBytes = 64ull << 10;       // any one string field
inline constexpr uint64_t kMaxListItems = 100'000;             // any one list or map field
inline constexpr uint64_t kMaxDocumentBytes = 1ull << 40;      // protocol ceiling; daemons cap lower

enum class MessageType : uint16_t {
  kHello = 1,
  kHelloReply = 2,
  kSubmit = 3,
  kJobAccepted = 4,
  kPageProgress = 5,
  kPageResultNotice = 6,
  kJobDone = 7,
  kJobFailed = 8,
  kStatusRequest = 9,
  kStatusReply = 10,
  kListRequest = 11,
  kListReply = 12,
  kCancelRequest = 13,
  kCancelReply = 14,
  kFetchRequest = 15,
  kFetchReply = 16,
  kStatsRequest = 17,
  kStatsReply = 18,
  kErrorReply = 19,
  kPing = 20,
  kPong = 21,
  kGoodbye = 22,
  kWatchRequest = 23,   // kCapWatchJobs
  kWatchReply = 24,     // kCapWatchJobs
  kBudgetRequest = 25,  // kCapSetBudget
  kBudgetReply = 26,    // kCapSetBudget
  kInfoRequest = 27,    // kCapInfo
  kInfoReply = 28,      // kCapInfo
};

// Outputs a client asks for (bit set in SubmitRequest::outputs and FetchRequest::outputs).
enum OutputKind : uint32_t {
  kOutputMarkdown = 1u << 0,     // NAME.md, streamed per page
  kOutputContentList = 1u << 1,  // NAME_content_list.json items, streamed per page
  kOutputMiddleJson = 1u << 2,   // NAME_middle.json
  kOutputModelOutput = 1u << 3,  // raw model text per page
  kOutputImages = 1u << 4,       // image crops referenced by the Markdown
  kAllOutputs = (1u << 5) - 1,
};

enum class JobState : uint8_t {
  kQueued = 0,
  kRunning = 1,
  kDone = 2,
  kFailed = 3,
  kCancelled = 4,
};
inline constexpr uint8_t kMaxJobState = 4;

// Capability bits exchanged in Hello/HelloReply.
enum Capability : uint64_t {
  kCapResultRing = 1ull << 0,  // the client can map a result ring (RingFds) and read records from it
  kCapZeroCopySubmit = 1ull << 1,
  // The client reads page results while it waits: for the jobs it follows, the daemon writes each
  // finished page into the result ring and sends PageResultNotice. Only with kCapResultRing.
  kCapPageResults = 1ull << 2,
  kCapWatchJobs = 1ull << 3,  // daemon: understands WatchRequest
  kCapSetBudget = 1ull << 4,  // daemon: understands BudgetRequest
  kCapInfo = 1ull << 5,       // daemon: understands InfoRequest
};

// ---------------------------------------------------------------------------------------------------
// Handshake.

// client -> daemon, first frame of every connection. 0 fds.
struct Hello {
  static constexpr MessageType kType = MessageType::kHello;
  uint16_t min_version = kProtocolVersion;  // oldest protocol version the client speaks
  uint16_t max_version = kProtocolVersion;  // newest
  std::string client_name;                  // e.g. "mineructl 0.1.0" (for logs and stats)
  uint64_t capabilities = 0;                // Capability bits
  uint64_t ring_bytes_wanted = 0;           // 0 = the daemon's default; the daemon clamps it

  template <class A>
  void serialize(A& ar) {
    ar(min_version, max_version, client_name, capabilities, ring_bytes_wanted);
  }
  bool operator==(const Hello&) const = default;
};

// daemon -> client. Carries kRingFdCount fds (the session's result ring, shm/ring_layout.h RingFds
// order) when `capabilities` has kCapResultRing, else 0.
struct HelloReply {
  static constexpr MessageType kType = MessageType::kHelloReply;
  uint16_t version = kProtocolVersion;  // the version both sides now speak
  std::string daemon_version;
  uint64_t capabilities = 0;
  uint64_t session_id = 0;
  uint32_t peer_uid = 0;  // the uid the daemon identified the client as (SO_PEERCRED)
  uint64_t ring_capacity_bytes = 0;
  uint64_t max_document_bytes = 0;  // the daemon's cap on SubmitRequest::document_bytes

  template <class A>
  void serialize(A& ar) {
    ar(version, daemon_version, capabilities, session_id, peer_uid, ring_capacity_bytes, max_document_bytes);
  }
  bool operator==(const HelloReply&) const = default;
};

// ---------------------------------------------------------------------------------------------------
// Jobs.

// client -> daemon. Carries exactly 1 fd: a sealed memfd of `document_bytes` bytes (shm/sealed_document.h).
struct SubmitRequest {
  static constexpr MessageType kType = MessageType::kSubmit;
  uint64_t request_id = 0;
  std::string document_name;  // base name for outputs, e.g. "paper" (no '/'); checked by the daemon
  std::string media_type = "application/pdf";
  uint64_t document_bytes = 0;                              // must equal the memfd's size
  uint32_t outputs = kOutputMarkdown | kOutputContentList;  // OutputKind bits, not 0
  uint32_t first_page = 0;                                  // 0-based, inclusive
  uint32_t last_page = UINT32_MAX;                          // inclusive; UINT32_MAX = to the end
  std::string backend = "auto";                             // "auto", "vlm" or "text"
  bool detach = false;  // true: the job outlives the connection; results are fetched later

  template <class A>
  void serialize(A& ar) {
    ar(request_id, document_name, media_type, document_bytes, outputs, first_page, last_page, backend,
       detach);
  }
  bool operator==(const SubmitRequest&) const = default;
};

// daemon -> client: the submit with `request_id` became job `job_id`.
struct JobAccepted {
  static constexpr MessageType kType = MessageType::kJobAccepted;
  uint64_t request_id = 0;
  uint64_t job_id = 0;
  uint32_t queue_position = 0;  // 0 = running now

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job_id, queue_position);
  }
  bool operator==(const JobAccepted&) const = default;
};

struct PageProgress {
  static constexpr MessageType kType = MessageType::kPageProgress;
  uint64_t job_id = 0;
  uint32_t pages_done = 0;
  uint32_t pages_total = 0;

  template <class A>
  void serialize(A& ar) {
    ar(job_id, pages_done, pages_total);
  }
  bool operator==(const PageProgress&) const = default;
};

// daemon -> client: the records of one finished page, sequence numbers
// [first_record_sequence, first_record_sequence + record_count) of the result ring (shm/ring_layout.h),
// are on their way: sent before the records are written, so the client reads them as the ring lets
// them through (a page may be larger than the ring). Only to clients with kCapPageResults.
struct PageResultNotice {
  static constexpr MessageType kType = MessageType::kPageResultNotice;
  uint64_t job_id = 0;
  uint32_t page_index = 0;
  uint64_t first_record_sequence = 0;
  uint32_t record_count = 0;
  uint64_t result_bytes = 0;

  template <class A>
  void serialize(A& ar) {
    ar(job_id, page_index, first_record_sequence, record_count, result_bytes);
  }
  bool operator==(const PageResultNotice&) const = default;
};

struct JobDone {
  static constexpr MessageType kType = MessageType::kJobDone;
  uint64_t job_id = 0;
  uint32_t pages_total = 0;
  uint64_t result_bytes = 0;
  uint64_t elapsed_ms = 0;

  template <class A>
  void serialize(A& ar) {
    ar(job_id, pages_total, result_bytes, elapsed_ms);
  }
  bool operator==(const JobDone&) const = default;
};

struct JobFailed {
  static constexpr MessageType kType = MessageType::kJobFailed;
  uint64_t job_id = 0;
  StatusCode code = StatusCode::kInternal;  // never kOk
  std::string message;

  template <class A>
  void serialize(A& ar) {
    ar(job_id, code, message);
  }
  bool operator==(const JobFailed&) const = default;
};

// ---------------------------------------------------------------------------------------------------
// Queries.

struct JobInfo {
  uint64_t job_id = 0;
  uint32_t owner_uid = 0;
  JobState state = JobState::kQueued;
  std::string document_name;
  std::string backend;
  uint32_t pages_done = 0;
  uint32_t pages_total = 0;  // 0 until the document was opened
  int64_t submitted_unix_ms = 0;
  int64_t started_unix_ms = 0;   // 0 = not started
  int64_t finished_unix_ms = 0;  // 0 = not finished
  uint64_t document_bytes = 0;
  uint64_t result_bytes = 0;
  StatusCode error_code = StatusCode::kOk;  // set when state is kFailed
  std::string error_message;

  template <class A>
  void serialize(A& ar) {
    ar(job_id, owner_uid, state, document_name, backend, pages_done, pages_total, submitted_unix_ms,
       started_unix_ms, finished_unix_ms, document_bytes, result_bytes, error_code, error_message);
  }
  bool operator==(const JobInfo&) const = default;
};

struct StatusRequest {
  static constexpr MessageType kType = MessageType::kStatusRequest;
  uint64_t request_id = 0;
  uint64_t job_id = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job_id);
  }
  bool operator==(const StatusRequest&) const = default;
};

struct StatusReply {
  static constexpr MessageType kType = MessageType::kStatusReply;
  uint64_t request_id = 0;
  JobInfo job;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job);
  }
  bool operator==(const StatusReply&) const = default;
};

struct ListRequest {
  static constexpr MessageType kType = MessageType::kListRequest;
  uint64_t request_id = 0;
  bool all_users = false;  // admin only; others get ErrorReply kPermissionDenied

  template <class A>
  void serialize(A& ar) {
    ar(request_id, all_users);
  }
  bool operator==(const ListRequest&) const = default;
};

struct ListReply {
  static constexpr MessageType kType = MessageType::kListReply;
  uint64_t request_id = 0;
  std::vector<JobInfo> jobs;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, jobs);
  }
  bool operator==(const ListReply&) const = default;
};

struct CancelRequest {
  static constexpr MessageType kType = MessageType::kCancelRequest;
  uint64_t request_id = 0;
  uint64_t job_id = 0;  // ignored when `all` is set
  bool all = false;     // every job of the caller

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job_id, all);
  }
  bool operator==(const CancelRequest&) const = default;
};

struct CancelReply {
  static constexpr MessageType kType = MessageType::kCancelReply;
  uint64_t request_id = 0;
  std::vector<uint64_t> cancelled_job_ids;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, cancelled_job_ids);
  }
  bool operator==(const CancelReply&) const = default;
};

// client -> daemon: stream the stored results of a finished job into this session's result ring.
struct FetchRequest {
  static constexpr MessageType kType = MessageType::kFetchRequest;
  uint64_t request_id = 0;
  uint64_t job_id = 0;
  uint32_t outputs = kAllOutputs;  // OutputKind bits

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job_id, outputs);
  }
  bool operator==(const FetchRequest&) const = default;
};

// daemon -> client, after the last record of the fetch is in the ring.
struct FetchReply {
  static constexpr MessageType kType = MessageType::kFetchReply;
  uint64_t request_id = 0;
  uint64_t job_id = 0;
  uint64_t first_record_sequence = 0;
  uint32_t record_count = 0;
  uint64_t result_bytes = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job_id, first_record_sequence, record_count, result_bytes);
  }
  bool operator==(const FetchReply&) const = default;
};

struct StatsRequest {
  static constexpr MessageType kType = MessageType::kStatsRequest;
  uint64_t request_id = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id);
  }
  bool operator==(const StatsRequest&) const = default;
};

// One residency tier's row ("gpu", "pinned", "disk").
struct TierStats {
  std::string tier;
  uint64_t budget_bytes = 0;
  uint64_t used_bytes = 0;
  uint64_t peak_bytes = 0;
  uint32_t units_resident = 0;

  template <class A>
  void serialize(A& ar) {
    ar(tier, budget_bytes, used_bytes, peak_bytes, units_resident);
  }
  bool operator==(const TierStats&) const = default;
};

struct StatsReply {
  static constexpr MessageType kType = MessageType::kStatsReply;
  uint64_t request_id = 0;
  std::map<std::string, double> counters;  // fixed vocabulary, e.g. "jobs_queued", "kv_pages_used"
  std::vector<TierStats> tiers;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, counters, tiers);
  }
  bool operator==(const StatsReply&) const = default;
};

// client -> daemon (only when HelloReply announced kCapWatchJobs): stream the events of `job_id` to
// this session from now on, as for a job it submitted. A job the peer may not see is answered like
// StatusRequest: ErrorReply kNotFound "no job N".
struct WatchRequest {
  static constexpr MessageType kType = MessageType::kWatchRequest;
  uint64_t request_id = 0;
  uint64_t job_id = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job_id);
  }
  bool operator==(const WatchRequest&) const = default;
};

// daemon -> client: the job as it was when the watch began. Every event after this snapshot follows
// (PageProgress*, then JobDone | JobFailed), unless the job had already ended (state final: none).
struct WatchReply {
  static constexpr MessageType kType = MessageType::kWatchReply;
  uint64_t request_id = 0;
  JobInfo job;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, job);
  }
  bool operator==(const WatchReply&) const = default;
};

// client -> daemon (only when HelloReply announced kCapSetBudget): the model's VRAM (kGpu) budget from
// now until the next reload or restart, where the config's vram_budget applies again. Root and the
// admin group only (kPermissionDenied); kUnimplemented when the daemon runs no model; kInvalidArgument
// when the budget is too small to run a page.
struct BudgetRequest {
  static constexpr MessageType kType = MessageType::kBudgetRequest;
  uint64_t request_id = 0;
  uint64_t vram_budget_bytes = 0;  // > 0

  template <class A>
  void serialize(A& ar) {
    ar(request_id, vram_budget_bytes);
  }
  bool operator==(const BudgetRequest&) const = default;
};

// daemon -> client: the budget now in force.
struct BudgetReply {
  static constexpr MessageType kType = MessageType::kBudgetReply;
  uint64_t request_id = 0;
  uint64_t vram_budget_bytes = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, vram_budget_bytes);
  }
  bool operator==(const BudgetReply&) const = default;
};

// client -> daemon (only when HelloReply announced kCapInfo): what this daemon is and runs.
struct InfoRequest {
  static constexpr MessageType kType = MessageType::kInfoRequest;
  uint64_t request_id = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id);
  }
  bool operator==(const InfoRequest&) const = default;
};

// daemon -> client: the daemon's version, backend, model and budgets. Any peer that may connect may
// ask: nothing here names another user or their jobs.
struct InfoReply {
  static constexpr MessageType kType = MessageType::kInfoReply;
  uint64_t request_id = 0;
  std::string daemon_version;
  uint16_t protocol_version = kProtocolVersion;
  uint32_t pid = 0;
  int64_t started_unix_ms = 0;
  std::string backend;    // "text-layer", "vlm", ...
  std::string model_dir;  // the model folder as resolved; empty without a model
  std::string model;      // one line describing the loaded model; empty without a model
  // The budgets in force (a `mineructl budget` change shows here); 0 = none / no model.
  uint64_t vram_budget_bytes = 0;
  uint64_t pinned_budget_bytes = 0;
  uint32_t workers = 0;
  uint32_t max_batch = 0;
  uint64_t max_document_bytes = 0;
  uint64_t max_pages_per_document = 0;
  uint32_t max_jobs_queued = 0;
  uint32_t max_jobs_per_user = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, daemon_version, protocol_version, pid, started_unix_ms, backend, model_dir, model,
       vram_budget_bytes, pinned_budget_bytes, workers, max_batch, max_document_bytes, max_pages_per_document,
       max_jobs_queued, max_jobs_per_user);
  }
  bool operator==(const InfoReply&) const = default;
};

// daemon -> client: a request (or the frame itself) was refused. `code` mirrors mineru::StatusCode:
// kBusy (queue full: retry after `retry_after_ms`), kPermissionDenied, kInvalidArgument, kNotFound,
// kResourceExhausted, kUnimplemented, kDataLoss (a broken frame) ... never kOk.
struct ErrorReply {
  static constexpr MessageType kType = MessageType::kErrorReply;
  uint64_t request_id = 0;  // 0 when the frame could not be decoded
  StatusCode code = StatusCode::kInternal;
  std::string message;
  uint32_t retry_after_ms = 0;

  template <class A>
  void serialize(A& ar) {
    ar(request_id, code, message, retry_after_ms);
  }
  bool operator==(const ErrorReply&) const = default;
};

// Either side: liveness and latency probe. The peer answers Pong with the same nonce.
struct Ping {
  static constexpr MessageType kType = MessageType::kPing;
  uint64_t nonce = 0;
  std::string padding;  // lets a probe have a chosen size

  template <class A>
  void serialize(A& ar) {
    ar(nonce, padding);
  }
  bool operator==(const Ping&) const = default;
};

struct Pong {
  static constexpr MessageType kType = MessageType::kPong;
  uint64_t nonce = 0;
  std::string padding;

  template <class A>
  void serialize(A& ar) {
    ar(nonce, padding);
  }
  bool operator==(const Pong&) const = default;
};

// Either side, last frame before an orderly close.
struct Goodbye {
  static constexpr MessageType kType = MessageType::kGoodbye;
  std::string reason;

  template <class A>
  void serialize(A& ar) {
    ar(reason);
  }
  bool operator==(const Goodbye&) const = default;
};

// Every message. The alternative's kType is its frame type.
using Message =
    std::variant<Hello, HelloReply, SubmitRequest, JobAccepted, PageProgress, PageResultNotice, JobDone,
                 JobFailed, StatusRequest, StatusReply, ListRequest, ListReply, CancelRequest, CancelReply,
                 FetchRequest, FetchReply, StatsRequest, StatsReply, ErrorReply, Ping, Pong, Goodbye,
                 WatchRequest, WatchReply, BudgetRequest, BudgetReply, InfoRequest, InfoReply>;

inline MessageType TypeOf(const Message& m) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kType; }, m);
}

// "hello", "submit", ... ("unknown" for values outside MessageType).
const char* MessageTypeName(MessageType type);

// The number of fds a frame of `type` must carry; `capabilities` matters only for kHelloReply.
uint32_t ExpectedFdCount(MessageType type, uint64_t capabilities);

// Builds the ErrorReply for a failed Status (status must not be OK).
ErrorReply MakeErrorReply(uint64_t request_id, const Status& status, uint32_t retry_after_ms = 0);

}  // namespace mineru::shm
