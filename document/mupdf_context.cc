#include "document/mupdf_context.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace mineru::document {
namespace {

constexpr size_t kHeaderBytes = 16;  // keeps the payload 16-byte aligned; holds the payload size
constexpr size_t kMaxMessages = 200;
constexpr size_t kMaxMessageBytes = 300;

AllocatorState* State(void* user) { return static_cast<AllocatorState*>(user); }

bool MayAllocate(AllocatorState* s) {
  if (s->abort_reason.load(std::memory_order_relaxed) != 0) return false;
  if (s->cancel != nullptr && s->cancel->load(std::memory_order_relaxed)) {
    s->abort_reason.store(static_cast<int>(AbortReason::kCancelled), std::memory_order_relaxed);
    return false;
  }
  if (s->deadline.Expired()) {
    s->abort_reason.store(static_cast<int>(AbortReason::kTime), std::memory_order_relaxed);
    return false;
  }
  return true;
}

// Charges `grow` bytes; false (and the memory abort reason) when the cap would be passed.
bool Charge(AllocatorState* s, size_t grow) {
  uint64_t now = s->used_bytes.fetch_add(grow, std::memory_order_relaxed) + grow;
  if (now > s->cap_bytes) {
    s->used_bytes.fetch_sub(grow, std::memory_order_relaxed);
    s->abort_reason.store(static_cast<int>(AbortReason::kMemory), std::memory_order_relaxed);
    return false;
  }
  uint64_t peak = s->peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !s->peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return true;
}

void* CountingMalloc(void* user, size_t size) {
  AllocatorState* s = State(user);
  if (size > SIZE_MAX - kHeaderBytes || !MayAllocate(s) || !Charge(s, size)) return nullptr;
  auto* raw = static_cast<unsigned char*>(std::malloc(size + kHeaderBytes));
  if (raw == nullptr) {
    s->used_bytes.fetch_sub(size, std::memory_order_relaxed);
    return nullptr;
  }
  std::memcpy(raw, &size, sizeof(size));
  return raw + kHeaderBytes;
}

void CountingFree(void* user, void* ptr) {
  if (ptr == nullptr) return;
  auto* raw = static_cast<unsigned char*>(ptr) - kHeaderBytes;
  size_t size;
  std::memcpy(&size, raw, sizeof(size));
  State(user)->used_bytes.fetch_sub(size, std::memory_order_relaxed);
  std::free(raw);
}

void* CountingRealloc(void* user, void* old, size_t size) {
  if (old == nullptr) return CountingMalloc(user, size);
  if (size == 0) {
    CountingFree(user, old);
    return nullptr;
  }
  AllocatorState* s = State(user);
  auto* old_raw = static_cast<unsigned char*>(old) - kHeaderBytes;
  size_t old_size;
  std::memcpy(&old_size, old_raw, sizeof(old_size));
  if (size > SIZE_MAX - kHeaderBytes || !MayAllocate(s)) return nullptr;
  if (size > old_size && !Charge(s, size - old_size)) return nullptr;
  auto* raw = static_cast<unsigned char*>(std::realloc(old_raw, size + kHeaderBytes));
  if (raw == nullptr) {
    if (size > old_size) s->used_bytes.fetch_sub(size - old_size, std::memory_order_relaxed);
    return nullptr;
  }
  if (size < old_size) s->used_bytes.fetch_sub(old_size - size, std::memory_order_relaxed);
  std::memcpy(raw, &size, sizeof(size));
  return raw + kHeaderBytes;
}

void LockMutex(void* user, int lock) { static_cast<std::recursive_mutex*>(user)[lock].lock(); }
void UnlockMutex(void* user, int lock) { static_cast<std::recursive_mutex*>(user)[lock].unlock(); }

}  // namespace

Result<std::unique_ptr<MupdfContext>> MupdfContext::Create(const DocumentLimits& limits,
                                                           const CancelFlag* cancel) {
  MINERU_RETURN_IF_ERROR(ValidateLimits(limits));
  std::unique_ptr<MupdfContext> m(new MupdfContext());
  m->alloc_.cap_bytes = limits.max_memory_bytes;
  m->alloc_.cancel = cancel;
  if (limits.time_budget_ms > 0) m->alloc_.deadline = Deadline::InMillis(limits.time_budget_ms);

  fz_alloc_context alloc = {&m->alloc_, CountingMalloc, CountingRealloc, CountingFree};
  fz_locks_context locks = {m->locks_.data(), LockMutex, UnlockMutex};
  // The resource store (fonts, decoded images) gets a quarter of the cap; it evicts under pressure.
  size_t store = static_cast<size_t>(std::min<uint64_t>(limits.max_memory_bytes / 4, uint64_t{256} << 20));
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed))
    return Cancelled("document parsing was cancelled");
  m->ctx_ = fz_new_context(&alloc, &locks, store);
  if (m->ctx_ == nullptr) {
    Status abort = m->AbortStatus();
    return abort.ok() ? ResourceExhausted("MuPDF could not create a context within the memory cap") : abort;
  }
  m->InstallCallbacks(m->ctx_);
  m->watchdog_ = std::thread([raw = m.get()] { raw->WatchdogLoop(); });
  return m;
}

MupdfContext::~MupdfContext() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
  if (ctx_ != nullptr) fz_drop_context(ctx_);
}

fz_context* MupdfContext::Clone() {
  fz_context* clone = fz_clone_context(ctx_);
  if (clone != nullptr) InstallCallbacks(clone);
  return clone;
}

void MupdfContext::InstallCallbacks(fz_context* ctx) {
  fz_set_warning_callback(ctx, &MupdfContext::OnWarning, this);
  fz_set_error_callback(ctx, &MupdfContext::OnError, this);
}

void MupdfContext::RegisterCookie(fz_cookie* cookie) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted()) cookie->abort = 1;
  cookies_.push_back(cookie);
}

void MupdfContext::UnregisterCookie(fz_cookie* cookie) {
  std::lock_guard<std::mutex> lock(mu_);
  cookies_.erase(std::remove(cookies_.begin(), cookies_.end(), cookie), cookies_.end());
}

void MupdfContext::WatchdogLoop() {
  // Wakes at the deadline, and every 100 ms to notice a cancellation flag (which has no way to wake us).
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    auto wake = MonoNow() + std::chrono::milliseconds(100);
    if (!alloc_.deadline.never()) wake = std::min(wake, alloc_.deadline.at());
    cv_.wait_until(lock, wake, [&] { return stop_; });
    if (stop_) break;
    if (alloc_.abort_reason.load(std::memory_order_relaxed) == 0) {
      if (alloc_.deadline.Expired()) {
        alloc_.abort_reason.store(static_cast<int>(AbortReason::kTime), std::memory_order_relaxed);
      } else if (alloc_.cancel != nullptr && alloc_.cancel->load(std::memory_order_relaxed)) {
        alloc_.abort_reason.store(static_cast<int>(AbortReason::kCancelled), std::memory_order_relaxed);
      }
    }
    if (alloc_.abort_reason.load(std::memory_order_relaxed) != 0) {
      for (fz_cookie* c : cookies_) c->abort = 1;
    }
  }
}

Status MupdfContext::AbortStatus() const {
  switch (static_cast<AbortReason>(alloc_.abort_reason.load(std::memory_order_relaxed))) {
    case AbortReason::kNone:
      return Status::Ok();
    case AbortReason::kMemory:
      return ResourceExhausted("document needs more than its memory cap of " +
                               std::to_string(alloc_.cap_bytes >> 20) + " MiB");
    case AbortReason::kTime:
      return DeadlineExceeded("document ran past its time budget");
    case AbortReason::kCancelled:
      return Cancelled("document parsing was cancelled");
  }
  return Status::Ok();
}

Status MupdfContext::FailureStatus(fz_context* ctx, std::string_view what) const {
  Status abort = AbortStatus();
  if (!abort.ok()) return abort;
  std::string message = fz_caught_message(ctx);
  int code = fz_caught(ctx);
  if (code == FZ_ERROR_MEMORY) return ResourceExhausted(std::string(what) + ": out of memory: " + message);
  if (code == FZ_ERROR_ABORT) return Cancelled(std::string(what) + ": aborted");
  return DataLoss(std::string(what) + ": " + message);
}

void MupdfContext::AddMessage(const char* kind, const char* message) {
  std::string text = std::string(kind) + ": " + (message != nullptr ? message : "");
  if (text.size() > kMaxMessageBytes) text.resize(kMaxMessageBytes);
  std::lock_guard<std::mutex> lock(mu_);
  if (messages_.size() >= kMaxMessages) {
    ++dropped_messages_;
    return;
  }
  messages_.push_back(std::move(text));
}

void MupdfContext::OnWarning(void* user, const char* message) {
  static_cast<MupdfContext*>(user)->AddMessage("warning", message);
}
void MupdfContext::OnError(void* user, const char* message) {
  static_cast<MupdfContext*>(user)->AddMessage("error", message);
}

std::vector<std::string> MupdfContext::TakeWarnings() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  out.swap(messages_);
  if (dropped_messages_ > 0) {
    out.push_back("(" + std::to_string(dropped_messages_) + " more MuPDF messages dropped)");
    dropped_messages_ = 0;
  }
  return out;
}

}  // namespace mineru::document
