// MupdfContext: a MuPDF base context for one document, with
//   - a counting allocator: every allocation is charged against the document's memory cap, and fails once
//     the cap, the time budget or a cancellation is hit (MuPDF then unwinds with an error);
//   - locks (FZ_LOCK_MAX mutexes) so the context can be cloned, one clone per worker thread;
//   - a watchdog thread that sets `abort` on every registered fz_cookie when the time budget runs out or
//     the caller cancels, which stops page work that does not allocate;
//   - collected warnings and errors instead of MuPDF printing them.
// Private to document/.
#pragma once

#include <mupdf/fitz.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "document/limits.h"

namespace mineru::document {

enum class AbortReason { kNone = 0, kMemory, kTime, kCancelled };

// Shared by the base context and its clones; lives as long as the MupdfContext.
struct AllocatorState {
  uint64_t cap_bytes = 0;
  std::atomic<uint64_t> used_bytes{0};
  std::atomic<uint64_t> peak_bytes{0};
  std::atomic<int> abort_reason{0};  // AbortReason; sticky
  Deadline deadline;
  const CancelFlag* cancel = nullptr;
};

class MupdfContext {
 public:
  static Result<std::unique_ptr<MupdfContext>> Create(const DocumentLimits& limits, const CancelFlag* cancel);
  ~MupdfContext();
  MupdfContext(const MupdfContext&) = delete;
  MupdfContext& operator=(const MupdfContext&) = delete;

  fz_context* ctx() const { return ctx_; }
  // A clone for another thread (shares the allocator, store and locks); drop with fz_drop_context.
  // Null when MuPDF could not clone (out of memory).
  fz_context* Clone();

  // Cookies registered here are aborted by the watchdog. A cookie must be unregistered before it dies.
  void RegisterCookie(fz_cookie* cookie);
  void UnregisterCookie(fz_cookie* cookie);

  // The error that explains a MuPDF failure: the abort reason when one is set, else `what: message`.
  Status FailureStatus(fz_context* ctx, std::string_view what) const;
  // An abort reason as a Status (OK when none).
  Status AbortStatus() const;
  // True once any limit or cancellation has stopped the document.
  bool aborted() const { return alloc_.abort_reason.load(std::memory_order_relaxed) != 0; }

  std::vector<std::string> TakeWarnings();
  uint64_t used_bytes() const { return alloc_.used_bytes.load(std::memory_order_relaxed); }
  uint64_t peak_bytes() const { return alloc_.peak_bytes.load(std::memory_order_relaxed); }

  // Installs the warning / error callbacks on a (cloned) context.
  void InstallCallbacks(fz_context* ctx);

 private:
  MupdfContext() = default;
  void WatchdogLoop();
  void AddMessage(const char* kind, const char* message);
  static void OnWarning(void* user, const char* message);
  static void OnError(void* user, const char* message);

  AllocatorState alloc_;
  // Recursive: when an allocation fails while MuPDF holds its FreeType lock (a cap, a deadline or a
  // cancellation makes every allocation fail), MuPDF's store scavenger may drop a font and take the
  // FreeType lock again on the same thread; a plain mutex deadlocks the worker there.
  std::array<std::recursive_mutex, FZ_LOCK_MAX> locks_;
  fz_context* ctx_ = nullptr;

  std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  bool stop_ = false;                  // Guarded by mu_
  std::vector<fz_cookie*> cookies_;    // Guarded by mu_
  std::vector<std::string> messages_;  // Guarded by mu_
  uint64_t dropped_messages_ = 0;      // Guarded by mu_
  std::thread watchdog_;
};

// Registers a cookie for the scope of one page operation.
class ScopedCookie {
 public:
  explicit ScopedCookie(MupdfContext& mctx) : mctx_(mctx) { mctx_.RegisterCookie(&cookie_); }
  ~ScopedCookie() { mctx_.UnregisterCookie(&cookie_); }
  ScopedCookie(const ScopedCookie&) = delete;
  ScopedCookie& operator=(const ScopedCookie&) = delete;
  fz_cookie* get() { return &cookie_; }

 private:
  MupdfContext& mctx_;
  fz_cookie cookie_{};
};

}  // namespace mineru::document
