// Backend: what turns one document into output files, the pipeline's one face to the daemon. The
// daemon's job workers call Parse() on their own threads; the text-layer backend (MuPDF's text layer,
// no model) is the default, the model backend (model_backend.h) runs MinerU 2.0. The interface stays
// narrow and knows nothing of the wire format: a document in, per-page progress out, output files out,
// cancellation in.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "common/watchdog.h"
#include "document/page_range.h"
#include "pipeline/page_text.h"

namespace mineru {
struct Config;
}
namespace mineru::document {
class PdfDocument;
struct OutputFiles;
struct PageResult;
}  // namespace mineru::document

namespace mineru::pipeline {

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
  int document_fd = -1;               // the same bytes as a sealed memfd, when the caller has one
  std::string name;                   // the document's base name; output files are named after it
  document::PageRange pages;          // the pages to parse; one starting past the end fails the job
  int64_t max_pages = 0;              // 0: no limit; more pages fail the job
  Deadline deadline;                  // past it the job fails with kDeadlineExceeded
  uint64_t memory_limit_bytes = 0;    // 0: no limit
  uint32_t user = 0;                  // who submitted it: pages are shared out fairly between users
  uint64_t job_id = 0;                // for Cancel(); 0 when the caller never cancels by id
  // The worker's watchdog deadline, or null. Progress re-arms it for a page; a backend that does more
  // than a page of its own work between two progress calls calls Expect(page_allowance) before each
  // page, and Idle() before it waits for a thread that has its own deadline (the model thread).
  Watchdog::Party* watch = nullptr;
  std::chrono::milliseconds page_allowance{0};
};

// One finished page as a client may read it while the job runs (the whole-document files come at the
// end). Built with MakePageOutput.
struct PageOutput {
  uint32_t page_index = 0;   // in the document, 0-based
  std::string markdown;      // the page's Markdown (image links point at images/ of the final files)
  std::string content_list;  // JSON array: the page's content-list items
  std::string model_output;  // the model's raw text for the page; empty for the text layer
};

// Called after each page: pages finished so far, the number of pages the job parses, and the page.
using PageProgressFn =
    std::function<void(int64_t pages_done, int64_t pages_total, std::shared_ptr<const PageOutput> page)>;

// Set (to true) from another thread to stop a parse; the backend checks it at least once per page.
using CancelFlag = std::atomic<bool>;

struct BackendOutput {
  int64_t num_pages = 0;
  std::vector<OutputFile> files;
};

// One memory tier of a backend with a model, as `mineructl stats` shows it.
struct TierStats {
  std::string tier;
  uint64_t budget_bytes = 0;
  uint64_t used_bytes = 0;
  uint64_t peak_bytes = 0;
  uint32_t units_resident = 0;
};

// One page image for the model alone (minerud's OpenAI-compatible listener): no document, no parser,
// no output files; the answer is the model's text for the page, as in NAME_model_output.txt.
struct PageImageRequest {
  std::span<const uint8_t> png;       // the page image, PNG-encoded, at the size it was rendered
  int64_t max_new_tokens = 0;         // 0: the backend's limit
  int64_t no_repeat_ngram_size = -1;  // -1: the model's
  uint32_t user = 0;                  // pages are shared out fairly between users,
  uint64_t job = 0;                   // then between a user's jobs (a job's pages keep their order;
                                      // 0: a job of its own)
  Deadline deadline;
  // The text as it is written, in pieces that join to the answer's text; the last may come from the
  // calling thread just before GeneratePageText returns, the others from the model's thread: must be
  // quick and must not block. May be empty.
  std::function<void(std::string_view)> on_text;
};

// What a backend with a model adds to `mineructl stats`: its memory tiers and counters.
struct BackendStats {
  std::vector<TierStats> tiers;
  std::map<std::string, double> counters;
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

  // Memory tiers and counters for `mineructl stats`; nothing for a backend without a model.
  virtual BackendStats Stats() const { return {}; }
  // A reloaded config (SIGHUP): a backend applies what it can change while running (memory budgets).
  // An error keeps the backend's previous settings.
  virtual Status Reconfigure(const Config&) { return Status::Ok(); }
  // A new VRAM budget from `mineructl budget`, in force until the next reload. kUnimplemented for a
  // backend without a model; kInvalidArgument (naming the minimum) when too small.
  virtual Result<uint64_t> SetVramBudget(uint64_t) {
    return Unimplemented("this minerud runs no model (the text-layer backend): there is no VRAM budget");
  }
  // Called about once a second from the event loop (idle demotion of weights). Must not block.
  virtual void Tick() {}
  // Ends the pages of job `job_id` now (their memory is freed at once); its Parse() then returns
  // kCancelled once `cancel` is set. Never blocks.
  virtual void Cancel(uint64_t /*job_id*/) {}
  // How many jobs the backend usefully parses at once: the daemon runs at least this many workers, so
  // pages of that many documents can share the model's steps.
  virtual int64_t JobSlots() const { return 1; }
  // The model's text for one page image, through the same page scheduler (and budget) as documents'
  // pages. Thread-safe; blocks until the page is done. kCancelled when `cancel` was set,
  // kInvalidArgument for an image it cannot read, kUnimplemented without a local model.
  virtual Result<PageText> GeneratePageText(const PageImageRequest& /*request*/,
                                            const CancelFlag& /*cancel*/) {
    return Unimplemented("this minerud runs no model");
  }
  // The most tokens GeneratePageText writes for a page (0: no model).
  virtual int64_t PageTokenLimit() const { return 0; }
  // A short line for the unit's STATUS= (empty: nothing to add).
  virtual std::string StatusLine() const { return {}; }
};

// Opens the job's PDF under its limits (memory, time, page count; cancellation).
Result<std::unique_ptr<document::PdfDocument>> OpenBackendDocument(const BackendInput& input,
                                                                   const CancelFlag& cancel);
// A parsed page as PageOutput (`backend`: "text" or "vlm").
std::shared_ptr<const PageOutput> MakePageOutput(const document::PageResult& page, std::string_view backend);
// The writers' files as a backend's output.
BackendOutput ToBackendOutput(document::OutputFiles files, int64_t num_pages);

}  // namespace mineru::pipeline
