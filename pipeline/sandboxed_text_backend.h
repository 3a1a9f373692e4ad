// SandboxedTextLayerBackend: minerud's text-layer backend. Each document is opened and parsed by
// TextLayerBackend's code inside its own sandboxed worker process (worker/: minerud-worker, seccomp,
// namespaces, RLIMIT_AS / RLIMIT_CPU), so a crash, a hang or a runaway allocation in MuPDF ends that
// worker and fails that document, never minerud. The OCR keys (ocr, ocr_languages, ocr_page_time_limit)
// and the limits are the workers' command line: a reload ends the spares, and the jobs that start
// after it get workers with the new ones. The document goes to the worker as a sealed memfd;
// pages and output files come back in sealed memfds. A worker that finished a document cleanly parses
// the same user's next documents (up to 32, while it waits no more than 5 s between two; each with its
// own RLIMIT_CPU share), never another user's (worker_pool.h).
//
// A worker that dies without an answer is IsWorkerLost() (kUnavailable); the scheduler runs the job
// again in a fresh worker up to max_attempts. Thread-safe: each Parse() call uses its own worker.
#pragma once

#include <memory>
#include <string>

#include "common/config.h"
#include "pipeline/backend.h"
#include "worker/worker_pool.h"

namespace mineru::pipeline {

class SandboxedTextLayerBackend : public Backend {
 public:
  // Starts the workers and waits for the first one's Ready: a missing or broken worker binary fails
  // here, at start (kNotFound, kFailedPrecondition), not at the first job.
  static Result<std::unique_ptr<SandboxedTextLayerBackend>> Start(const Config& config);

  std::string_view name() const override { return "text"; }
  Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                              const CancelFlag& cancel) override;
  Status Reconfigure(const Config& config) override;

  // "text layer in sandboxed workers (<the sandbox report>)", for the log and `mineructl info`.
  std::string Describe() const;

 private:
  explicit SandboxedTextLayerBackend(const Config& config);
  worker::WorkerPool pool_;
};

// The worker settings the config asks for (binary, RLIMIT_AS, RLIMIT_CPU).
worker::WorkerOptions WorkerOptionsFromConfig(const Config& config);

}  // namespace mineru::pipeline
