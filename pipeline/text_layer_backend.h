// TextLayerBackend: parses born-digital PDFs from MuPDF's text layer (document/text_backend.h) under the
// job's limits and writes MinerU's output files in memory (document/output_writer.h), in the calling
// process. Pages without a usable text layer are read by OCR as the daemon's config says (ocr,
// ocr_languages, ocr_page_time_limit); a reload applies to the jobs that start after it. minerud runs
// the same parse inside sandboxed document workers (sandboxed_text_backend.h); this in-process class
// is what tools, tests and benchmarks use directly. Thread-safe: workers call Parse() at once, the
// event loop calls Reconfigure().
#pragma once

#include <mutex>

#include "document/ocr.h"
#include "pipeline/backend.h"

namespace mineru::pipeline {

class TextLayerBackend : public Backend {
 public:
  explicit TextLayerBackend(document::OcrOptions ocr = {}) : ocr_(std::move(ocr)) {}
  std::string_view name() const override { return "text"; }
  Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                              const CancelFlag& cancel) override;
  Status Reconfigure(const Config& config) override;

 private:
  document::OcrOptions Ocr() const;

  mutable std::mutex mu_;
  document::OcrOptions ocr_;  // Guarded by mu_
};

// The text-layer parse of a document already opened (OpenBackendDocument): input.pages and input.name
// are used; the rest of `input` was applied when opening. What TextLayerBackend::Parse and a document
// worker run.
Result<BackendOutput> ParseOpenedWithTextLayer(document::PdfDocument& pdf, const BackendInput& input,
                                               const document::OcrOptions& ocr,
                                               const PageProgressFn& progress, const CancelFlag& cancel);

// The OCR settings of a daemon config.
document::OcrOptions OcrOptionsFrom(const Config& config);

}  // namespace mineru::pipeline
