// PdfDocument: one untrusted PDF opened by MuPDF from memory, under DocumentLimits.
//
// The bytes are read in place (no copy, no temp file) and must outlive the PdfDocument: a span over the
// client's mapped memfd. Each PdfDocument owns its own MuPDF base context with a counting allocator (the
// memory cap) and locks, so limits are per document; parallel rendering clones that context once per
// worker thread. PDF JavaScript is never enabled. MuPDF's warnings and errors are collected, not printed.
//
// Thread use: one thread at a time calls a PdfDocument (the daemon's worker for this job); RenderPages
// fans out to its own threads internally. A CancelFlag may be set from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "document/limits.h"
#include "document/rgb_image.h"

namespace mineru::document {

struct PageSize {
  double width_pt = 0;  // as displayed (after /Rotate)
  double height_pt = 0;
};

class PdfDocument {
 public:
  // Fails with kInvalidArgument (not a PDF, empty), kPermissionDenied (password needed or wrong),
  // kResourceExhausted (over the memory or page cap), kDeadlineExceeded, kCancelled or kDataLoss (broken
  // beyond repair). `bytes` are read in place, not copied, and `cancel` (optional) is read while it
  // runs: both must outlive the document.
  static Result<std::unique_ptr<PdfDocument>> Open(std::span<const uint8_t> bytes,
                                                   const DocumentLimits& limits,
                                                   const CancelFlag* cancel = nullptr);
  ~PdfDocument();
  PdfDocument(const PdfDocument&) = delete;
  PdfDocument& operator=(const PdfDocument&) = delete;

  int page_count() const;
  Result<PageSize> GetPageSize(int page_index);

  // Renders one page to RGB at `dpi` (72..600), honouring the pixel cap and the time budget.
  Result<RgbImage> RenderPage(int page_index, double dpi);
  // Renders only `region` (0-1000 frame of the page) at `dpi`: a crop that costs the region's pixels, not
  // the page's. The pixel cap applies to the region.
  Result<RgbImage> RenderRegion(int page_index, double dpi, BBox region);
  // Renders several pages in parallel: display lists are recorded on the calling thread (MuPDF documents
  // are single-threaded), then rasterised by `num_threads` workers, each with a cloned context.
  // Results come back in the order of `page_indices`; a failed page has its Status in place.
  std::vector<Result<RgbImage>> RenderPages(std::span<const int> page_indices, double dpi, int num_threads);

  // Warnings and errors MuPDF reported since the last call (oldest first), e.g. "repairing xref".
  std::vector<std::string> TakeWarnings();
  // Bytes MuPDF holds now for this document and the most it held at once.
  uint64_t memory_bytes() const;
  uint64_t peak_memory_bytes() const;
  const DocumentLimits& limits() const;
  // OK until a limit (memory, time) or the cancel flag stops the document; then that error. Work done
  // outside MuPDF (OCR) polls it.
  Status LimitStatus() const;

  // The MuPDF side (fz_context, fz_document, allocator, watchdog), private to document/.
  class Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit PdfDocument(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mineru::document
