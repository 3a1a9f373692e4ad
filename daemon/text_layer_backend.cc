#include "daemon/text_layer_backend.h"

#include <algorithm>
#include <chrono>
#include <climits>

#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"

namespace mineru::daemon {

Result<BackendOutput> TextLayerBackend::Parse(const BackendInput& input, const PageProgressFn& progress,
                                              const CancelFlag& cancel) {
  document::DocumentLimits limits;
  if (input.memory_limit_bytes > 0) limits.max_memory_bytes = input.memory_limit_bytes;
  if (input.max_pages > 0) limits.max_pages = static_cast<int>(std::min<int64_t>(input.max_pages, INT_MAX));
  if (!input.deadline.never()) {
    int64_t left_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(input.deadline.at() - MonoNow()).count();
    if (left_ms <= 0) return DeadlineExceeded("the job's time limit passed before parsing started");
    limits.time_budget_ms = left_ms;
  } else {
    limits.time_budget_ms = 0;
  }
  MINERU_RETURN_IF_ERROR(document::ValidateLimits(limits));
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<document::PdfDocument> pdf,
                          document::PdfDocument::Open(input.document, limits, &cancel));
  document::TextBackendOptions options;
  options.cancel = &cancel;
  options.on_page = [&](const document::PageProgress& p) {
    progress(p.page_index + 1, p.num_pages);
    return !cancel.load(std::memory_order_acquire);
  };
  MINERU_ASSIGN_OR_RETURN(document::ParsedDocument parsed, document::ParseWithTextLayer(*pdf, options));
  MINERU_ASSIGN_OR_RETURN(document::OutputFiles files, document::WriteOutputs(parsed, input.name, pdf.get()));
  BackendOutput out;
  out.num_pages = parsed.num_pages;
  out.files.reserve(files.files.size());
  for (document::OutputFile& f : files.files) {
    out.files.push_back(OutputFile{std::move(f.relative_path), std::string(f.bytes.begin(), f.bytes.end())});
  }
  return out;
}

}  // namespace mineru::daemon
