// The protocol between minerud and a document worker (minerud-worker): fixed-size messages over a
// SOCK_SEQPACKET socket pair (one message per datagram, at most one fd with it), and "bundles": sealed
// memfds that carry named byte strings (a page's Markdown and content list, a job's output files, a
// rendered page) back from the worker, so results cross through shared memory, never through the socket.
//
//   worker -> daemon  kReady      text: what the sandbox holds (the daemon logs it once)
//   daemon -> worker  kOpen       fd: the document's sealed memfd; size, limits
//   worker -> daemon  kOpened     count: the document's page count          | kError
//   daemon -> worker  kParseText  first/last page                            (text-layer backend)
//   worker -> daemon  kPage       fd: bundle {markdown, content_list, model_output}; page, done, total
//   worker -> daemon  kDone       fd: bundle of output files (path -> bytes); count: pages parsed
//   daemon -> worker  kRender     page, dpi                                  (for a model path)
//   worker -> daemon  kImage      fd: bundle {rgb}; width, height            | kError
//
// Everything a worker sends is untrusted (it parsed a hostile document): the daemon checks the magic, the
// type, every size and string, and adopts fds only as sealed memfds of the declared size.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/unique_fd.h"
#include "shm/sealed_document.h"

namespace mineru::worker {

inline constexpr uint32_t kMessageMagic = 0x4b57524du;  // "MRWK"
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kMaxText = 1024;

enum class MessageType : uint16_t {
  kReady = 1,
  kOpen,
  kOpened,
  kParseText,
  kPage,
  kDone,
  kRender,
  kImage,
  kError,
};

// One datagram. Fields not used by a type are zero.
struct Message {
  uint32_t magic = kMessageMagic;
  uint16_t version = kProtocolVersion;
  MessageType type = MessageType::kError;
  int32_t code = 0;        // kError: a StatusCode
  uint32_t page = 0;       // kPage/kRender: the page (0-based); kParseText: first page
  uint32_t last_page = 0;  // kParseText: last page (PageRange::kToEnd: to the end)
  int32_t count = 0;       // kOpened: page count; kDone: pages parsed; kPage: pages done
  int32_t total = 0;       // kPage: pages the job parses
  int32_t width = 0;       // kImage
  int32_t height = 0;      // kImage
  int32_t reserved = 0;
  int64_t max_pages = 0;            // kOpen
  int64_t time_budget_ms = 0;       // kOpen: 0 = none
  uint64_t memory_limit_bytes = 0;  // kOpen
  uint64_t fd_bytes = 0;            // size of the memfd that travels with this message
  double dpi = 0;                   // kRender
  char text[kMaxText] = {};         // NUL-terminated: kError message, kReady sandbox report, kOpen name
};

std::string_view MessageTypeName(MessageType type);

// Sets `text` (truncated to fit, always NUL-terminated).
void SetText(Message& m, std::string_view text);
// The text up to its NUL (or the whole field when a hostile sender left none).
std::string GetText(const Message& m);

// A connected SOCK_SEQPACKET pair, close-on-exec.
Result<std::pair<UniqueFd, UniqueFd>> MessageSocketPair();
// Sends one message with an optional fd. kUnavailable when the peer is gone.
Status SendMessage(int socket_fd, const Message& m, int fd = -1);
// Receives one message (blocking). kUnavailable on EOF; kDataLoss for a datagram that is not a whole
// Message of this version, or that carries more than one fd.
struct Received {
  Message message;
  UniqueFd fd;
};
Result<Received> ReceiveMessage(int socket_fd);

// A bundle: named byte strings in one sealed memfd.
//   header: magic u32, version u32, count u32, reserved u32
//   then per entry: name_bytes u32, reserved u32, data_bytes u64, name, data
struct BundleEntry {
  std::string name;
  std::span<const uint8_t> data;
};
// Writes `entries` into a new sealed memfd; returns the fd and its size.
Result<std::pair<UniqueFd, uint64_t>> WriteBundle(std::span<const BundleEntry> entries);

// A received bundle: the mapping and views of its entries (valid while the Bundle lives).
class Bundle {
 public:
  // Adopts `fd` only as a memfd sealed against write/shrink/grow of exactly `declared_bytes` (at most
  // `max_bytes`), then checks every length and name. Errors are kDataLoss / kInvalidArgument.
  static Result<Bundle> Read(UniqueFd fd, uint64_t declared_bytes, uint64_t max_bytes);

  const std::vector<BundleEntry>& entries() const { return entries_; }
  // The entry named `name`, or an empty span.
  std::span<const uint8_t> Find(std::string_view name) const;

 private:
  explicit Bundle(shm::SealedDocument document) : document_(std::move(document)) {}
  shm::SealedDocument document_;
  std::vector<BundleEntry> entries_;
};

}  // namespace mineru::worker
