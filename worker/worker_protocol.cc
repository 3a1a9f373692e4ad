#include "worker/worker_protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/syscall.h"
#include "shm/document_buffer.h"

namespace mineru::worker {
namespace {

constexpr uint32_t kBundleMagic = 0x424b574du;  // "MWKB"
constexpr uint32_t kBundleVersion = 1;
constexpr uint32_t kMaxBundleEntries = 1u << 16;
constexpr uint32_t kMaxNameBytes = 4096;

struct BundleHeader {
  uint32_t magic = kBundleMagic;
  uint32_t version = kBundleVersion;
  uint32_t count = 0;
  uint32_t reserved = 0;
};

struct EntryHeader {
  uint32_t name_bytes = 0;
  uint32_t reserved = 0;
  uint64_t data_bytes = 0;
};

bool ValidType(MessageType t) {
  auto v = static_cast<uint16_t>(t);
  return v >= static_cast<uint16_t>(MessageType::kReady) && v <= static_cast<uint16_t>(MessageType::kError);
}

}  // namespace

std::string_view MessageTypeName(MessageType type) {
  switch (type) {
    case MessageType::kReady:
      return "Ready";
    case MessageType::kOpen:
      return "Open";
    case MessageType::kOpened:
      return "Opened";
    case MessageType::kParseText:
      return "ParseText";
    case MessageType::kPage:
      return "Page";
    case MessageType::kDone:
      return "Done";
    case MessageType::kRender:
      return "Render";
    case MessageType::kImage:
      return "Image";
    case MessageType::kError:
      return "Error";
  }
  return "unknown";
}

void SetText(Message& m, std::string_view text) {
  const size_t n = std::min(text.size(), kMaxText - 1);
  std::memcpy(m.text, text.data(), n);
  m.text[n] = '\0';
}

std::string GetText(const Message& m) { return std::string(m.text, strnlen(m.text, kMaxText)); }

Result<std::pair<UniqueFd, UniqueFd>> MessageSocketPair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    return ErrnoStatus(errno, "socketpair(SOCK_SEQPACKET)");
  }
  return std::pair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

Status SendMessage(int socket_fd, const Message& m, int fd) {
  iovec iov{const_cast<Message*>(&m), sizeof(m)};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  const ssize_t n = RetryEintr([&] { return ::sendmsg(socket_fd, &msg, MSG_NOSIGNAL); });
  if (n < 0) {
    if (errno == EPIPE || errno == ECONNRESET) return Unavailable("the worker's socket is closed");
    return ErrnoStatus(errno, "sendmsg(worker)");
  }
  if (static_cast<size_t>(n) != sizeof(m)) return Internal("short send on a SOCK_SEQPACKET socket");
  return Status::Ok();
}

Result<Received> ReceiveMessage(int socket_fd) {
  Received out;
  iovec iov{&out.message, sizeof(out.message)};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  const ssize_t n = RetryEintr([&] { return ::recvmsg(socket_fd, &msg, MSG_CMSG_CLOEXEC); });
  if (n < 0) {
    if (errno == ECONNRESET) return Unavailable("the worker's socket is closed");
    return ErrnoStatus(errno, "recvmsg(worker)");
  }
  // Take every fd that came, whatever else is wrong, so none leaks.
  std::vector<UniqueFd> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      fds.emplace_back(fd);
    }
  }
  if (n == 0) return Unavailable("the worker's socket is closed");
  if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || static_cast<size_t>(n) != sizeof(Message)) {
    return DataLoss("a worker message of the wrong size");
  }
  if (out.message.magic != kMessageMagic || out.message.version != kProtocolVersion ||
      !ValidType(out.message.type)) {
    return DataLoss("a worker message with a wrong magic, version or type");
  }
  if (fds.size() > 1) return DataLoss("a worker message with more than one fd");
  if (!fds.empty()) out.fd = std::move(fds[0]);
  return out;
}

Result<std::pair<UniqueFd, uint64_t>> WriteBundle(std::span<const BundleEntry> entries) {
  uint64_t total = sizeof(BundleHeader);
  for (const BundleEntry& e : entries) total += sizeof(EntryHeader) + e.name.size() + e.data.size();
  MINERU_ASSIGN_OR_RETURN(shm::DocumentBuffer buffer, shm::DocumentBuffer::Create(total));
  uint8_t* p = buffer.data().data();
  BundleHeader header;
  header.count = static_cast<uint32_t>(entries.size());
  std::memcpy(p, &header, sizeof(header));
  p += sizeof(header);
  for (const BundleEntry& e : entries) {
    EntryHeader eh;
    eh.name_bytes = static_cast<uint32_t>(e.name.size());
    eh.data_bytes = e.data.size();
    std::memcpy(p, &eh, sizeof(eh));
    p += sizeof(eh);
    std::memcpy(p, e.name.data(), e.name.size());
    p += e.name.size();
    if (!e.data.empty()) std::memcpy(p, e.data.data(), e.data.size());
    p += e.data.size();
  }
  MINERU_ASSIGN_OR_RETURN(UniqueFd fd, buffer.Seal());
  return std::pair{std::move(fd), total};
}

Result<Bundle> Bundle::Read(UniqueFd fd, uint64_t declared_bytes, uint64_t max_bytes) {
  auto document = shm::SealedDocument::Adopt(std::move(fd), declared_bytes, max_bytes);
  if (!document.ok()) return DataLoss("a worker result: " + document.status().message());
  Bundle bundle(std::move(*document));
  std::span<const uint8_t> bytes = bundle.document_.bytes();
  if (bytes.size() < sizeof(BundleHeader)) return DataLoss("a worker result too short for its header");
  BundleHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (header.magic != kBundleMagic || header.version != kBundleVersion || header.count > kMaxBundleEntries) {
    return DataLoss("a worker result with a wrong magic, version or count");
  }
  uint64_t at = sizeof(header);
  for (uint32_t i = 0; i < header.count; ++i) {
    EntryHeader eh;
    if (bytes.size() - at < sizeof(eh)) return DataLoss("a worker result entry past its end");
    std::memcpy(&eh, bytes.data() + at, sizeof(eh));
    at += sizeof(eh);
    if (eh.name_bytes > kMaxNameBytes || eh.name_bytes > bytes.size() - at) {
      return DataLoss("a worker result entry name past its end");
    }
    std::string name(reinterpret_cast<const char*>(bytes.data() + at), eh.name_bytes);
    at += eh.name_bytes;
    if (eh.data_bytes > bytes.size() - at) return DataLoss("a worker result entry past its end");
    bundle.entries_.push_back(BundleEntry{std::move(name), bytes.subspan(at, eh.data_bytes)});
    at += eh.data_bytes;
  }
  if (at != bytes.size()) return DataLoss("a worker result with bytes after its last entry");
  return bundle;
}

std::span<const uint8_t> Bundle::Find(std::string_view name) const {
  for (const BundleEntry& e : entries_) {
    if (e.name == name) return e.data;
  }
  return {};
}

}  // namespace mineru::worker
