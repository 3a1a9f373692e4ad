#include "pipeline/text_layer_backend.h"

#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"

namespace mineru::pipeline {

Result<BackendOutput> TextLayerBackend::Parse(const BackendInput& input, const PageProgressFn& progress,
                                              const CancelFlag& cancel) {
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<document::PdfDocument> pdf, OpenBackendDocument(input, cancel));
  return ParseOpenedWithTextLayer(*pdf, input, progress, cancel);
}

Result<BackendOutput> ParseOpenedWithTextLayer(document::PdfDocument& pdf, const BackendInput& input,
                                               const PageProgressFn& progress, const CancelFlag& cancel) {
  document::TextBackendOptions options;
  options.cancel = &cancel;
  options.pages = input.pages;
  int64_t pages_done = 0;
  options.on_page = [&](const document::PageProgress& p) {
    progress(++pages_done, p.num_pages, MakePageOutput(*p.page, "text"));
    return !cancel.load(std::memory_order_acquire);
  };
  MINERU_ASSIGN_OR_RETURN(document::ParsedDocument parsed, document::ParseWithTextLayer(pdf, options));
  MINERU_ASSIGN_OR_RETURN(document::OutputFiles files, document::WriteOutputs(parsed, input.name, &pdf));
  return ToBackendOutput(std::move(files), static_cast<int64_t>(parsed.pages.size()));
}

}  // namespace mineru::pipeline
