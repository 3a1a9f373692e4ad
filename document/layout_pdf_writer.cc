// NAME_layout.pdf: each parsed page of the source as a 96-DPI JPEG image with every block's box stroked
// in its type's colour and numbered in reading order, so people can check a parse at a glance. Pages are
// raster images on purpose: nothing of a hostile source (fonts, Type 3 glyphs, broken images) is copied
// into the new PDF. Runs on the document's own context, so the memory cap and time budget apply; a page
// that cannot be rendered gets its boxes on a blank page.
#include <array>

#include "document/pdf_document.h"

#include "document/output_writer.h"
#include "document/page_geometry.h"
#include "document/pdf_document_impl.h"

namespace mineru::document {
namespace {

std::array<float, 3> TypeColor(BlockType type) {
  switch (type) {
    case BlockType::kTitle:
      return {0.85f, 0.10f, 0.10f};
    case BlockType::kText:
      return {0.10f, 0.30f, 0.90f};
    case BlockType::kList:
      return {0.00f, 0.60f, 0.70f};
    case BlockType::kIndex:
      return {0.45f, 0.45f, 0.45f};
    case BlockType::kImage:
      return {0.10f, 0.65f, 0.15f};
    case BlockType::kTable:
      return {0.95f, 0.55f, 0.00f};
    case BlockType::kEquation:
      return {0.60f, 0.20f, 0.80f};
    case BlockType::kImageCaption:
    case BlockType::kTableCaption:
      return {0.80f, 0.20f, 0.60f};
    case BlockType::kImageFootnote:
    case BlockType::kTableFootnote:
      return {0.55f, 0.35f, 0.20f};
  }
  return {0, 0, 0};
}

// Draws the boxes and numbers of one page onto `dev` (MuPDF calls; may throw).
void DrawBoxes(fz_context* ctx, fz_device* dev, fz_font* font, const PageResult& page, const Rect& pr) {
  fz_path* path = nullptr;
  fz_text* text = nullptr;
  fz_var(path);
  fz_var(text);
  fz_try(ctx) {
    for (size_t i = 0; i < page.blocks.size(); ++i) {
      const Block& b = page.blocks[i];
      Rect r = FromPageFrame(b.bbox, pr);
      std::array<float, 3> color = TypeColor(b.type);
      path = fz_new_path(ctx);
      fz_rectto(ctx, path, static_cast<float>(r.x0), static_cast<float>(r.y0), static_cast<float>(r.x1),
                static_cast<float>(r.y1));
      fz_stroke_state stroke = fz_default_stroke_state;
      stroke.linewidth = 1.0f;
      fz_stroke_path(ctx, dev, path, &stroke, fz_identity, fz_device_rgb(ctx), color.data(), 1.0f,
                     fz_default_color_params);
      fz_drop_path(ctx, path);
      path = nullptr;

      std::string label = std::to_string(i + 1) + " " + std::string(BlockTypeName(b.type));
      text = fz_new_text(ctx);
      fz_matrix trm = fz_scale(7, -7);
      trm.e = static_cast<float>(r.x0 + 1);
      trm.f = static_cast<float>(r.y0 > 8 ? r.y0 - 1.5 : r.y0 + 7);
      fz_show_string(ctx, text, font, trm, label.c_str(), 0, 0, FZ_BIDI_LTR, FZ_LANG_UNSET);
      fz_fill_text(ctx, dev, text, fz_identity, fz_device_rgb(ctx), color.data(), 1.0f,
                   fz_default_color_params);
      fz_drop_text(ctx, text);
      text = nullptr;
    }
  }
  fz_always(ctx) {
    fz_drop_path(ctx, path);
    fz_drop_text(ctx, text);
  }
  fz_catch(ctx) { fz_rethrow(ctx); }
}

constexpr double kLayoutDpi = 96;

// One layout page: the JPEG (when there is one) scaled to the page, then the boxes.
Status WritePage(fz_context* ctx, fz_document_writer* writer, fz_font* font, const PageResult& page,
                 const Rect& pr, const std::vector<uint8_t>& jpeg) {
  fz_buffer* buf = nullptr;
  fz_image* image = nullptr;
  fz_var(buf);
  fz_var(image);
  fz_try(ctx) {
    fz_rect mediabox = {0, 0, static_cast<float>(pr.width()), static_cast<float>(pr.height())};
    fz_device* dev = fz_begin_page(ctx, writer, mediabox);
    if (!jpeg.empty()) {
      buf = fz_new_buffer_from_copied_data(ctx, jpeg.data(), jpeg.size());
      image = fz_new_image_from_buffer(ctx, buf);
      fz_matrix ctm = fz_scale(mediabox.x1, mediabox.y1);
      fz_fill_image(ctx, dev, image, ctm, 1.0f, fz_default_color_params);
    }
    DrawBoxes(ctx, dev, font, page, pr);
    fz_end_page(ctx, writer);
  }
  fz_always(ctx) {
    fz_drop_image(ctx, image);
    fz_drop_buffer(ctx, buf);
  }
  fz_catch(ctx) {
    return DataLoss("cannot write page " + std::to_string(page.page_idx + 1) +
                    " of the layout PDF: " + fz_caught_message(ctx));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<uint8_t>> WriteLayoutPdf(const ParsedDocument& doc, PdfDocument& source) {
  PdfDocument::Impl& impl = source.impl();
  fz_context* ctx = impl.ctx();
  fz_buffer* buffer = nullptr;
  fz_document_writer* writer = nullptr;
  fz_font* font = nullptr;
  fz_var(buffer);
  fz_var(writer);
  fz_var(font);
  fz_try(ctx) {
    buffer = fz_new_buffer(ctx, 64 * 1024);
    writer = fz_new_pdf_writer_with_output(ctx, fz_new_output_with_buffer(ctx, buffer), "compress");
    font = fz_new_base14_font(ctx, "Helvetica");
  }
  fz_catch(ctx) {
    fz_drop_document_writer(ctx, writer);
    fz_drop_buffer(ctx, buffer);
    return impl.mctx().FailureStatus(ctx, "cannot start the layout PDF");
  }
  Status status;
  for (const PageResult& page : doc.pages) {
    Rect pr{0, 0, page.width_pt, page.height_pt};
    std::vector<uint8_t> jpeg;
    if (auto render = source.RenderPage(page.page_idx, kLayoutDpi); render.ok()) {
      auto encoded = EncodeJpeg(*render, 75);
      if (encoded.ok()) jpeg = std::move(*encoded);
    } else if (Status s = impl.mctx().AbortStatus(); !s.ok()) {
      status = s;
      break;
    }
    source.TakeWarnings();  // already reported by the parse
    if (pr.empty()) pr = {0, 0, 612, 792};
    status = WritePage(ctx, writer, font, page, pr, jpeg);
    if (!status.ok()) {
      Status abort = impl.mctx().AbortStatus();
      if (!abort.ok()) status = abort;
      break;
    }
  }
  std::vector<uint8_t> bytes;
  fz_try(ctx) {
    if (status.ok()) fz_close_document_writer(ctx, writer);
  }
  fz_catch(ctx) { status = impl.mctx().FailureStatus(ctx, "cannot finish the layout PDF"); }
  if (status.ok()) {
    unsigned char* data = nullptr;
    size_t size = fz_buffer_storage(ctx, buffer, &data);
    bytes.assign(data, data + size);
  }
  fz_drop_document_writer(ctx, writer);
  fz_drop_font(ctx, font);
  fz_drop_buffer(ctx, buffer);
  if (!status.ok()) return status;
  return bytes;
}

}  // namespace mineru::document
