// The MuPDF side of PdfDocument, shared by the files of document/ that talk to MuPDF. Private.
#pragma once

#include <mupdf/fitz.h>
#include <mupdf/pdf.h>

#include <memory>

#include "document/mupdf_context.h"
#include "document/pdf_document.h"

namespace mineru::document {

// A loaded page, dropped with the context that loaded it.
class PageHandle {
 public:
  PageHandle(fz_context* ctx, fz_page* page) : ctx_(ctx), page_(page) {}
  ~PageHandle() {
    if (page_ != nullptr) fz_drop_page(ctx_, page_);
  }
  PageHandle(PageHandle&& o) noexcept : ctx_(o.ctx_), page_(o.page_) { o.page_ = nullptr; }
  PageHandle& operator=(PageHandle&&) = delete;
  PageHandle(const PageHandle&) = delete;
  fz_page* get() const { return page_; }

 private:
  fz_context* ctx_;
  fz_page* page_;
};

class PdfDocument::Impl {
 public:
  Impl(std::unique_ptr<MupdfContext> mctx, fz_document* doc, int page_count, DocumentLimits limits)
      : mctx_(std::move(mctx)), doc_(doc), page_count_(page_count), limits_(std::move(limits)) {}
  ~Impl() {
    fz_drop_display_list(mctx_->ctx(), region_list_);
    if (doc_ != nullptr) fz_drop_document(mctx_->ctx(), doc_);
  }

  MupdfContext& mctx() { return *mctx_; }
  fz_context* ctx() { return mctx_->ctx(); }
  fz_document* doc() { return doc_; }
  int page_count() const { return page_count_; }
  const DocumentLimits& limits() const { return limits_; }

  // Checks the index, the limits, then loads the page.
  Result<PageHandle> LoadPage(int page_index);
  // The page's displayed bounds in points (MuPDF's frame: origin top-left after /Rotate).
  Result<fz_rect> PageBounds(fz_page* page);

  // The last page RenderRegion recorded, kept for the next region of the same page (the crops of a
  // page's figures and tables interpret it once): owned; null or that page's list.
  fz_display_list* region_list_ = nullptr;
  int region_list_page_ = -1;

 private:
  std::unique_ptr<MupdfContext> mctx_;
  fz_document* doc_;
  int page_count_;
  DocumentLimits limits_;
};

}  // namespace mineru::document
