// TextLayerBackend: parses born-digital PDFs from MuPDF's text layer (document/text_backend.h) under the
// job's limits and writes MinerU's output files in memory (document/output_writer.h), in the calling
// process. minerud runs the same parse inside sandboxed document workers (sandboxed_text_backend.h);
// this in-process class is what a worker runs, and what tools and benchmarks use directly.
#pragma once

#include "pipeline/backend.h"

namespace mineru::pipeline {

class TextLayerBackend : public Backend {
 public:
  std::string_view name() const override { return "text"; }
  Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                              const CancelFlag& cancel) override;
};

// The text-layer parse of a document already opened (OpenBackendDocument): input.pages and input.name
// are used; the rest of `input` was applied when opening.
Result<BackendOutput> ParseOpenedWithTextLayer(document::PdfDocument& pdf, const BackendInput& input,
                                               const PageProgressFn& progress, const CancelFlag& cancel);

}  // namespace mineru::pipeline
