#include "pipeline/text_layer_backend.h"

#include "common/config.h"
#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"

namespace mineru::pipeline {

Result<BackendOutput> TextLayerBackend::Parse(const BackendInput& input, const PageProgressFn& progress,
                                              const CancelFlag& cancel) {
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<document::PdfDocument> pdf, OpenBackendDocument(input, cancel));
  return ParseOpenedWithTextLayer(*pdf, input, Ocr(), progress, cancel);
}

Result<BackendOutput> ParseOpenedWithTextLayer(document::PdfDocument& pdf, const BackendInput& input,
                                               const document::OcrOptions& ocr,
                                               const PageProgressFn& progress, const CancelFlag& cancel) {
  document::TextBackendOptions options;
  options.cancel = &cancel;
  options.pages = input.pages;
  options.ocr = ocr;
  int64_t pages_done = 0;
  options.on_page = [&](const document::PageProgress& p) {
    progress(++pages_done, p.num_pages, MakePageOutput(*p.page, "text"));
    return !cancel.load(std::memory_order_acquire);
  };
  MINERU_ASSIGN_OR_RETURN(document::ParsedDocument parsed, document::ParseWithTextLayer(pdf, options));
  MINERU_ASSIGN_OR_RETURN(document::OutputFiles files, document::WriteOutputs(parsed, input.name, &pdf));
  return ToBackendOutput(std::move(files), static_cast<int64_t>(parsed.pages.size()));
}

Status TextLayerBackend::Reconfigure(const Config& config) {
  std::lock_guard<std::mutex> lock(mu_);
  ocr_ = OcrOptionsFrom(config);
  return Status::Ok();
}

document::OcrOptions TextLayerBackend::Ocr() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ocr_;
}

document::OcrOptions OcrOptionsFrom(const Config& config) {
  document::OcrOptions ocr;
  ocr.enabled = config.ocr;
  ocr.languages = config.ocr_languages;
  ocr.page_time_limit_ms = config.ocr_page_time_limit_ms;
  return ocr;
}

}  // namespace mineru::pipeline
