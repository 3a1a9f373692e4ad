// Backend: what turns one document into output files. The daemon's workers call Parse() on their own
// threads; the text-layer backend (MuPDF's text layer, no model) is the default, and a model backend
// can be added beside it. The interface stays narrow: a document in, per-page progress out, output
// files out, cancellation in.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"

namespace mineru::daemon {

// One output file, its path relative to the job's output folder ("NAME.md", "images/p1_0.png").
// The daemon never writes user paths: the client joins these under its -o folder.
struct OutputFile {
  std::string path;
  std::string data;
};

// Checks a relative output path: no leading '/', no "." or ".." component, no empty component, no
// control bytes, at most 1024 bytes. The client checks again before writing.
Status ValidateOutputPath(std::string_view path);

struct BackendInput {
  std::span<const uint8_t> document;  // the whole document, read-only
  std::string name;                   // the document's base name; output files are named after it
  int64_t max_pages = 0;              // 0: no limit; more pages fail the job
  Deadline deadline;                  // past it the job fails with kDeadlineExceeded
  uint64_t memory_limit_bytes = 0;    // 0: no limit
};

// Called after each page: pages finished so far and the document's page count.
using PageProgressFn = std::function<void(int64_t pages_done, int64_t pages_total)>;

// Set (to true) from another thread to stop a parse; the backend checks it at least once per page.
using CancelFlag = std::atomic<bool>;

struct BackendOutput {
  int64_t num_pages = 0;
  std::vector<OutputFile> files;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // "text-layer", "vlm", ...; shown by daemon-status.
  virtual std::string_view name() const = 0;
  // Parses one document. Thread-safe: several workers call it at once. Returns kCancelled when `cancel`
  // was set, kDeadlineExceeded past the deadline, kInvalidArgument for a document it cannot read.
  virtual Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                                      const CancelFlag& cancel) = 0;
};

}  // namespace mineru::daemon
