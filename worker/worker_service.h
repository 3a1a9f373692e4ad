// The document worker's side: what minerud-worker's main runs. Opens the files it may need (the OCR
// models, read-only, loaded only when a page needs OCR), enters the sandbox (sandbox.h), says Ready with the
// sandbox's report, then serves documents: Open (the sealed memfd), ParseText and/or Render requests;
// a new Open ends the document before it; until minerud closes the socket. Results go back as sealed
// memfds (worker_protocol.h). minerud gives a worker the documents of one user only (worker_pool.h):
// nothing of one user's document is left in a process that sees another user's.
//
// Command line (minerud builds it): --socket-fd N --parent PID [--address-space-bytes N]
//   [--cpu-seconds N] [--documents N] [--no-ocr] [--ocr-languages L] [--ocr-page-time-limit-ms N]
//   [--no-namespaces]
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "common/status.h"

namespace mineru::worker {

// For test builds of the worker only (tests/integration's test worker): called inside the sandbox with
// the document's bytes when it is opened, before MuPDF reads them; an error fails the Open with it.
// minerud-worker passes none.
struct WorkerHooks {
  std::function<Status(std::span<const uint8_t> document)> on_open;
};

// Exit codes of a worker (what the daemon reports when it goes away).
inline constexpr int kWorkerExitOk = 0;
inline constexpr int kWorkerExitUsage = 64;
inline constexpr int kWorkerExitSandbox = 71;      // the sandbox could not be entered
inline constexpr int kWorkerExitOutOfMemory = 72;  // an allocation failed under RLIMIT_AS
inline constexpr int kWorkerExitCpuTime = 73;      // SIGXCPU: its soft RLIMIT_CPU ran out
inline constexpr int kWorkerExitProtocol = 76;     // the daemon sent something unexpected

int RunWorker(int argc, char** argv, const WorkerHooks& hooks);

}  // namespace mineru::worker
