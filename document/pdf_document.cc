#include "document/pdf_document.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "document/pdf_document_impl.h"

namespace mineru::document {
namespace {

struct PixmapSize {
  fz_irect bbox;
  int width;
  int height;
};

Result<PixmapSize> CheckedPixmapSize(fz_rect bounds, double dpi, uint64_t max_pixels) {
  if (!(dpi >= 18 && dpi <= 1200)) return InvalidArgument("render DPI must be within 18..1200");
  fz_matrix ctm = fz_scale(static_cast<float>(dpi / 72.0), static_cast<float>(dpi / 72.0));
  fz_rect r = fz_transform_rect(bounds, ctm);
  double w = std::ceil(r.x1) - std::floor(r.x0);
  double h = std::ceil(r.y1) - std::floor(r.y0);
  if (!(w >= 1 && h >= 1)) return DataLoss("page has an empty or invalid size");
  if (w * h > static_cast<double>(max_pixels) || w > 1e6 || h > 1e6) {
    return ResourceExhausted("page render of " + std::to_string(static_cast<int64_t>(w)) + "x" +
                             std::to_string(static_cast<int64_t>(h)) + " pixels exceeds the pixel cap of " +
                             std::to_string(max_pixels));
  }
  fz_irect ib = fz_round_rect(r);
  return PixmapSize{ib, ib.x1 - ib.x0, ib.y1 - ib.y0};
}

// Copies an RGB pixmap (n = 3, no alpha) into an RgbImage.
RgbImage CopyPixmap(fz_context* ctx, fz_pixmap* pix) {
  RgbImage image;
  image.width = fz_pixmap_width(ctx, pix);
  image.height = fz_pixmap_height(ctx, pix);
  const unsigned char* samples = fz_pixmap_samples(ctx, pix);
  ptrdiff_t stride = fz_pixmap_stride(ctx, pix);
  size_t row = static_cast<size_t>(image.width) * 3;
  if (stride == static_cast<ptrdiff_t>(row)) {  // rows back to back: one copy, no zero fill first
    image.pixels.assign(samples, samples + row * static_cast<size_t>(image.height));
    return image;
  }
  image.pixels.resize(row * static_cast<size_t>(image.height));
  for (int y = 0; y < image.height; ++y) {
    std::memcpy(image.pixels.data() + row * static_cast<size_t>(y), samples + stride * y, row);
  }
  return image;
}

// Rasterises `list` (or `page` when list is null) on `ctx`. Returns the pixmap or null (error caught).
fz_pixmap* Rasterise(fz_context* ctx, fz_page* page, fz_display_list* list, const PixmapSize& size,
                     double dpi, fz_cookie* cookie, fz_rect scissor = fz_infinite_rect) {
  fz_pixmap* pix = nullptr;
  fz_device* dev = nullptr;
  fz_var(pix);
  fz_var(dev);
  fz_try(ctx) {
    fz_matrix ctm = fz_scale(static_cast<float>(dpi / 72.0), static_cast<float>(dpi / 72.0));
    pix = fz_new_pixmap_with_bbox(ctx, fz_device_rgb(ctx), size.bbox, nullptr, 0);
    fz_clear_pixmap_with_value(ctx, pix, 255);
    dev = fz_new_draw_device(ctx, fz_identity, pix);
    if (list != nullptr) {
      fz_run_display_list(ctx, list, dev, ctm, scissor, cookie);
    } else {
      fz_run_page(ctx, page, dev, ctm, cookie);
    }
    fz_close_device(ctx, dev);
  }
  fz_always(ctx) { fz_drop_device(ctx, dev); }
  fz_catch(ctx) {
    fz_drop_pixmap(ctx, pix);
    return nullptr;
  }
  return pix;
}

// Records `page` into a display list; null when MuPDF failed (the error is caught on `ctx`).
fz_display_list* RecordPage(fz_context* ctx, fz_page* page, fz_rect bounds, fz_cookie* cookie) {
  fz_display_list* list = nullptr;
  fz_device* dev = nullptr;
  fz_var(list);
  fz_var(dev);
  fz_try(ctx) {
    list = fz_new_display_list(ctx, bounds);
    dev = fz_new_list_device(ctx, list);
    fz_run_page(ctx, page, dev, fz_identity, cookie);
    fz_close_device(ctx, dev);
  }
  fz_always(ctx) { fz_drop_device(ctx, dev); }
  fz_catch(ctx) {
    fz_drop_display_list(ctx, list);
    return nullptr;
  }
  return list;
}

}  // namespace

Result<PageHandle> PdfDocument::Impl::LoadPage(int page_index) {
  if (page_index < 0 || page_index >= page_count_) {
    return OutOfRange("page " + std::to_string(page_index) + " is outside 0.." +
                      std::to_string(page_count_ - 1));
  }
  MINERU_RETURN_IF_ERROR(mctx_->AbortStatus());
  fz_context* ctx = mctx_->ctx();
  fz_page* page = nullptr;
  fz_var(page);
  fz_try(ctx) { page = fz_load_page(ctx, doc_, page_index); }
  fz_catch(ctx) { return mctx_->FailureStatus(ctx, "cannot load page " + std::to_string(page_index + 1)); }
  return PageHandle(ctx, page);
}

Result<fz_rect> PdfDocument::Impl::PageBounds(fz_page* page) {
  fz_context* ctx = mctx_->ctx();
  fz_rect r = fz_empty_rect;
  fz_var(r);
  fz_try(ctx) { r = fz_bound_page(ctx, page); }
  fz_catch(ctx) { return mctx_->FailureStatus(ctx, "cannot read the page size"); }
  if (fz_is_empty_rect(r) || !std::isfinite(r.x0) || !std::isfinite(r.x1) || !std::isfinite(r.y0) ||
      !std::isfinite(r.y1) || r.x1 - r.x0 > 200000 || r.y1 - r.y0 > 200000) {
    return DataLoss("page has an empty or absurd size");
  }
  return r;
}

Result<std::unique_ptr<PdfDocument>> PdfDocument::Open(std::span<const uint8_t> bytes,
                                                       const DocumentLimits& limits,
                                                       const CancelFlag* cancel) {
  if (bytes.empty()) return InvalidArgument("the document is empty (0 bytes)");
  MINERU_ASSIGN_OR_RETURN(auto mctx, MupdfContext::Create(limits, cancel));
  fz_context* ctx = mctx->ctx();
  fz_stream* stm = nullptr;
  pdf_document* pdf = nullptr;
  fz_var(stm);
  fz_var(pdf);
  // PDF only: the PDF handler is opened directly (no other formats, no JavaScript: pdf_enable_js is
  // never called).
  fz_try(ctx) {
    stm = fz_open_memory(ctx, bytes.data(), bytes.size());
    pdf = pdf_open_document_with_stream(ctx, stm);
  }
  fz_always(ctx) { fz_drop_stream(ctx, stm); }
  fz_catch(ctx) {
    Status s = mctx->FailureStatus(ctx, "cannot open the PDF");
    return s.code() == StatusCode::kDataLoss ? InvalidArgument(s.message()) : s;
  }
  fz_document* doc = &pdf->super;
  int needs_password = 0;
  int authenticated = 0;
  fz_var(needs_password);
  fz_var(authenticated);
  fz_try(ctx) {
    needs_password = fz_needs_password(ctx, doc);
    if (needs_password) authenticated = fz_authenticate_password(ctx, doc, limits.password.c_str());
  }
  fz_catch(ctx) {
    fz_drop_document(ctx, doc);
    return mctx->FailureStatus(ctx, "cannot check the PDF's encryption");
  }
  if (needs_password && !authenticated) {
    fz_drop_document(ctx, doc);
    return PermissionDenied(limits.password.empty() ? "the PDF is encrypted and needs a password"
                                                    : "the password does not open this PDF");
  }
  int count = 0;
  fz_var(count);
  fz_try(ctx) { count = fz_count_pages(ctx, doc); }
  fz_catch(ctx) {
    fz_drop_document(ctx, doc);
    return mctx->FailureStatus(ctx, "cannot count the PDF's pages");
  }
  if (count <= 0) {
    fz_drop_document(ctx, doc);
    return InvalidArgument("the PDF has no pages");
  }
  if (count > limits.max_pages) {
    fz_drop_document(ctx, doc);
    return ResourceExhausted("the PDF has " + std::to_string(count) + " pages; the limit is " +
                             std::to_string(limits.max_pages));
  }
  auto impl = std::make_unique<Impl>(std::move(mctx), doc, count, limits);
  return std::unique_ptr<PdfDocument>(new PdfDocument(std::move(impl)));
}

PdfDocument::PdfDocument(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PdfDocument::~PdfDocument() = default;

int PdfDocument::page_count() const { return impl_->page_count(); }
const DocumentLimits& PdfDocument::limits() const { return impl_->limits(); }
Status PdfDocument::LimitStatus() const { return impl_->mctx().AbortStatus(); }
std::vector<std::string> PdfDocument::TakeWarnings() { return impl_->mctx().TakeWarnings(); }
uint64_t PdfDocument::memory_bytes() const { return impl_->mctx().used_bytes(); }
uint64_t PdfDocument::peak_memory_bytes() const { return impl_->mctx().peak_bytes(); }

Result<PageSize> PdfDocument::GetPageSize(int page_index) {
  MINERU_ASSIGN_OR_RETURN(PageHandle page, impl_->LoadPage(page_index));
  MINERU_ASSIGN_OR_RETURN(fz_rect r, impl_->PageBounds(page.get()));
  return PageSize{r.x1 - r.x0, r.y1 - r.y0};
}

Result<RgbImage> PdfDocument::RenderPage(int page_index, double dpi) {
  MINERU_ASSIGN_OR_RETURN(PageHandle page, impl_->LoadPage(page_index));
  MINERU_ASSIGN_OR_RETURN(fz_rect bounds, impl_->PageBounds(page.get()));
  MINERU_ASSIGN_OR_RETURN(PixmapSize size,
                          CheckedPixmapSize(bounds, dpi, impl_->limits().max_pixels_per_page));
  // Through a display list, as RenderPages does, so both give the same pixels.
  ScopedCookie cookie(impl_->mctx());
  fz_context* ctx = impl_->ctx();
  fz_display_list* list = RecordPage(ctx, page.get(), bounds, cookie.get());
  if (list == nullptr)
    return impl_->mctx().FailureStatus(ctx, "cannot record page " + std::to_string(page_index + 1));
  fz_pixmap* pix = Rasterise(ctx, nullptr, list, size, dpi, cookie.get());
  fz_drop_display_list(ctx, list);
  if (pix == nullptr)
    return impl_->mctx().FailureStatus(ctx, "cannot render page " + std::to_string(page_index + 1));
  MINERU_RETURN_IF_ERROR(impl_->mctx().AbortStatus().WithContext("page " + std::to_string(page_index + 1)));
  RgbImage image = CopyPixmap(ctx, pix);
  fz_drop_pixmap(ctx, pix);
  return image;
}

Result<RgbImage> PdfDocument::RenderRegion(int page_index, double dpi, BBox region) {
  region = NormalizeBBox(region);
  if (region.empty()) return InvalidArgument("render region is empty");
  MINERU_ASSIGN_OR_RETURN(PageHandle page, impl_->LoadPage(page_index));
  MINERU_ASSIGN_OR_RETURN(fz_rect bounds, impl_->PageBounds(page.get()));
  float w = bounds.x1 - bounds.x0, h = bounds.y1 - bounds.y0;
  fz_rect r = {bounds.x0 + w * static_cast<float>(region.x0) / 1000,
               bounds.y0 + h * static_cast<float>(region.y0) / 1000,
               bounds.x0 + w * static_cast<float>(region.x1) / 1000,
               bounds.y0 + h * static_cast<float>(region.y1) / 1000};
  MINERU_ASSIGN_OR_RETURN(PixmapSize size, CheckedPixmapSize(r, dpi, impl_->limits().max_pixels_per_page));
  ScopedCookie cookie(impl_->mctx());
  fz_context* ctx = impl_->ctx();
  // The page is recorded once for all its regions; each draws only what crosses it (the scissor).
  if (impl_->region_list_page_ != page_index) {
    fz_drop_display_list(ctx, impl_->region_list_);
    impl_->region_list_ = nullptr;
    impl_->region_list_page_ = -1;
    fz_display_list* list = RecordPage(ctx, page.get(), bounds, cookie.get());
    if (list == nullptr)
      return impl_->mctx().FailureStatus(ctx, "cannot render page " + std::to_string(page_index + 1));
    if (Status s = impl_->mctx().AbortStatus(); !s.ok()) {  // a list cut short is never kept
      fz_drop_display_list(ctx, list);
      return s.WithContext("page " + std::to_string(page_index + 1));
    }
    impl_->region_list_ = list;
    impl_->region_list_page_ = page_index;
  }
  const fz_matrix ctm = fz_scale(static_cast<float>(dpi / 72.0), static_cast<float>(dpi / 72.0));
  fz_pixmap* pix =
      Rasterise(ctx, page.get(), impl_->region_list_, size, dpi, cookie.get(), fz_transform_rect(r, ctm));
  if (pix == nullptr)
    return impl_->mctx().FailureStatus(ctx, "cannot render page " + std::to_string(page_index + 1));
  MINERU_RETURN_IF_ERROR(impl_->mctx().AbortStatus().WithContext("page " + std::to_string(page_index + 1)));
  RgbImage image = CopyPixmap(ctx, pix);
  fz_drop_pixmap(ctx, pix);
  return image;
}

std::vector<Result<RgbImage>> PdfDocument::RenderPages(std::span<const int> page_indices, double dpi,
                                                       int num_threads) {
  num_threads = std::clamp(num_threads, 1, 64);
  std::vector<Result<RgbImage>> out;
  out.reserve(page_indices.size());
  fz_context* ctx = impl_->ctx();
  MupdfContext& mctx = impl_->mctx();
  // Work in batches so that at most 2 x num_threads display lists are alive at once.
  const size_t batch = static_cast<size_t>(num_threads) * 2;
  for (size_t start = 0; start < page_indices.size(); start += batch) {
    size_t end = std::min(page_indices.size(), start + batch);
    struct Job {
      fz_display_list* list = nullptr;
      PixmapSize size{};
      Status status;
      RgbImage image;
    };
    std::vector<Job> jobs(end - start);
    for (size_t i = start; i < end; ++i) {
      Job& job = jobs[i - start];
      int index = page_indices[i];
      auto page = impl_->LoadPage(index);
      if (!page.ok()) {
        job.status = page.status();
        continue;
      }
      auto bounds = impl_->PageBounds(page->get());
      if (!bounds.ok()) {
        job.status = bounds.status();
        continue;
      }
      auto size = CheckedPixmapSize(*bounds, dpi, impl_->limits().max_pixels_per_page);
      if (!size.ok()) {
        job.status = size.status();
        continue;
      }
      job.size = *size;
      ScopedCookie cookie(mctx);
      job.list = RecordPage(ctx, page->get(), *bounds, cookie.get());
      if (job.list == nullptr)
        job.status = mctx.FailureStatus(ctx, "cannot record page " + std::to_string(index + 1));
    }
    std::atomic<size_t> next{0};
    auto worker = [&]() {
      fz_context* wctx = mctx.Clone();
      if (wctx == nullptr) return;  // the remaining jobs stay unrendered and are reported below
      for (size_t j = next.fetch_add(1); j < jobs.size(); j = next.fetch_add(1)) {
        Job& job = jobs[j];
        if (job.list == nullptr) continue;
        ScopedCookie cookie(mctx);
        fz_pixmap* pix = Rasterise(wctx, nullptr, job.list, job.size, dpi, cookie.get());
        if (pix == nullptr) {
          job.status = mctx.FailureStatus(wctx, "cannot render page");
        } else {
          job.image = CopyPixmap(wctx, pix);
          fz_drop_pixmap(wctx, pix);
        }
      }
      fz_drop_context(wctx);
    };
    int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(num_threads), jobs.size()));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    for (Job& job : jobs) {
      if (job.list != nullptr) fz_drop_display_list(ctx, job.list);
      Status abort = mctx.AbortStatus();
      if (!job.status.ok()) {
        out.emplace_back(job.status);
      } else if (!abort.ok()) {
        out.emplace_back(abort);
      } else if (job.image.empty()) {
        out.emplace_back(ResourceExhausted("no worker context could be created to render the page"));
      } else {
        out.emplace_back(std::move(job.image));
      }
    }
  }
  return out;
}

}  // namespace mineru::document
