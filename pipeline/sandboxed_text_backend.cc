#include "pipeline/sandboxed_text_backend.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/cpu_count.h"
#include "shm/document_buffer.h"

namespace mineru::pipeline {
namespace {

std::string ToString(std::span<const uint8_t> bytes) { return std::string(bytes.begin(), bytes.end()); }

// A worker serves at most this many documents of one user, waiting at most kKeepIdle between two.
constexpr uint32_t kDocumentsPerWorker = 32;
constexpr std::chrono::milliseconds kKeepIdle{5000};

size_t SpareWorkers(const Config& config) {
  const int64_t n = config.workers > 0 ? config.workers : UsableCpus();
  return static_cast<size_t>(std::clamp<int64_t>(n, 1, 8));
}

}  // namespace

worker::WorkerOptions WorkerOptionsFromConfig(const Config& config) {
  worker::WorkerOptions w;
  w.path = config.document_worker.empty() ? worker::DefaultWorkerPath() : config.document_worker;
  w.address_space_bytes =
      config.worker_memory_bytes > 0 ? config.worker_memory_bytes : config.mupdf_memory_bytes + (1ull << 30);
  w.cpu_seconds = static_cast<uint64_t>(std::max<int64_t>(1, config.max_seconds_per_document));
  w.documents = kDocumentsPerWorker;
  w.ocr = config.ocr;
  w.ocr_languages = config.ocr_languages;
  w.ocr_page_time_limit_ms = config.ocr_page_time_limit_ms;
  return w;
}

SandboxedTextLayerBackend::SandboxedTextLayerBackend(const Config& config)
    : pool_(worker::WorkerPool::Options{WorkerOptionsFromConfig(config), SpareWorkers(config),
                                        std::chrono::milliseconds(60'000), kKeepIdle}) {}

Result<std::unique_ptr<SandboxedTextLayerBackend>> SandboxedTextLayerBackend::Start(const Config& config) {
  std::unique_ptr<SandboxedTextLayerBackend> backend(new SandboxedTextLayerBackend(config));
  // One worker through its start proves the binary and the sandbox; Take() also starts the spares.
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<worker::WorkerProcess> first, backend->pool_.Take());
  return backend;
}

std::string SandboxedTextLayerBackend::Describe() const {
  return "text layer in sandboxed document workers (" + pool_.SandboxReport() + ")";
}

Status SandboxedTextLayerBackend::Reconfigure(const Config& config) {
  worker::WorkerOptions options = WorkerOptionsFromConfig(config);
  if (::access(options.path.c_str(), X_OK) != 0) {
    return ErrnoStatus(errno, "document_worker '" + options.path + "'");
  }
  pool_.SetWorkerOptions(std::move(options));
  return Status::Ok();
}

Result<BackendOutput> SandboxedTextLayerBackend::Parse(const BackendInput& input,
                                                       const PageProgressFn& progress,
                                                       const CancelFlag& cancel) {
  // The document as a sealed memfd: the one it came in, else a copy of the spooled bytes.
  UniqueFd copy;
  int fd = input.document_fd;
  if (fd < 0) {
    MINERU_ASSIGN_OR_RETURN(shm::DocumentBuffer buffer, shm::DocumentBuffer::CopyOf(input.document));
    MINERU_ASSIGN_OR_RETURN(copy, buffer.Seal());
    fd = copy.get();
  }
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<worker::WorkerProcess> w, pool_.TakeFor(input.user));
  worker::OpenLimits limits;
  limits.name = input.name;
  limits.max_pages = input.max_pages;
  limits.memory_limit_bytes = input.memory_limit_bytes;
  limits.deadline = input.deadline;
  if (input.page_allowance.count() > 0) {
    limits.open_allowance = input.page_allowance + std::chrono::seconds(input.document.size() >> 20);
  }
  MINERU_ASSIGN_OR_RETURN(int page_count, w->Open(fd, input.document.size(), limits));
  (void)page_count;
  copy.reset();
  auto on_page = [&](worker::WorkerPage page) {
    auto out = std::make_shared<PageOutput>();
    out->page_index = page.page_index;
    out->markdown = ToString(page.bundle.Find("markdown"));
    out->content_list = ToString(page.bundle.Find("content_list"));
    out->model_output = ToString(page.bundle.Find("model_output"));
    progress(page.pages_done, page.pages_total, std::move(out));
  };
  MINERU_ASSIGN_OR_RETURN(
      worker::WorkerProcess::Parsed parsed,
      w->ParseText(input.pages.first, input.pages.last, on_page, input.page_allowance, cancel));
  BackendOutput out;
  out.num_pages = parsed.num_pages;
  out.files.reserve(parsed.files.entries().size());
  for (const worker::BundleEntry& e : parsed.files.entries()) out.files.push_back({e.name, ToString(e.data)});
  pool_.Give(input.user, std::move(w));  // finished cleanly: warm for this user's next document
  return out;
}

}  // namespace mineru::pipeline
