// The text-layer backend: blocks from MuPDF's structured text, for born-digital PDFs, with no model.
//
// Reading order across columns, titles from font size and weight (levels 1-4), paragraphs joined across
// lines with de-hyphenation (also of a word broken across a column or page break, hyphen_join.h), ligatures
// as their letters, bulleted and numbered lists, images and vector figures as JPEG crops, tables drawn
// with ruling lines as HTML, running headers / footers / margin stamps / page numbers left out, right-to-
// left lines in logical order.
// A page without a usable text layer is read by OCR (ocr.h); with OCR off or unavailable it is reported as
// PageStatus::kNeedsOcr, never emitted empty.
#pragma once

#include <functional>

#include "common/result.h"
#include "document/block.h"
#include "document/limits.h"
#include "document/ocr.h"
#include "document/page_range.h"
#include "document/pdf_document.h"

namespace mineru::document {

struct PageProgress {
  int page_index = 0;  // the page just finished
  int num_pages = 0;   // pages that will be parsed
  const PageResult* page = nullptr;
};

struct TextBackendOptions {
  // Called on the parsing thread after each page; return false to stop (the result is kCancelled).
  std::function<bool(const PageProgress&)> on_page;
  // Set from any thread to stop (kCancelled); must outlive the call.
  const CancelFlag* cancel = nullptr;
  // Crop images and tables into ParsedDocument::images (a render per page that has them).
  bool crop_images = true;
  double crop_dpi = 144;
  int jpeg_quality = 90;
  // The pages to parse (0-based, inclusive); page_idx in the results stays the document's own index.
  PageRange pages;
  // Pages without a usable text layer (none, or mostly replacement / private-use characters) are read
  // with Tesseract (ocr.h) unless ocr.enabled is false.
  OcrOptions ocr;
};

// Parses the pages of `doc` in options.pages (every page by default). A page MuPDF fails on is kept as
// PageStatus::kFailed with its error; the whole call fails only on a limit (memory, time), cancellation or a
// document-level error.
Result<ParsedDocument> ParseWithTextLayer(PdfDocument& doc, const TextBackendOptions& options);

// Convenience: Open + ParseWithTextLayer.
Result<ParsedDocument> ParseWithTextLayer(std::span<const uint8_t> pdf, const DocumentLimits& limits,
                                          const TextBackendOptions& options);

}  // namespace mineru::document
