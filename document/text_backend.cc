#include "document/text_backend.h"

#include <optional>

#include "document/text_layout.h"
#include "document/text_lines.h"

namespace mineru::document {
namespace {

constexpr char kNeedsOcr[] = "needs OCR or a model: the page has no text layer";

bool Cancelled(const TextBackendOptions& options) {
  return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
}

void AppendWarnings(std::vector<std::string>& to, std::vector<std::string> from) {
  for (std::string& w : from) to.push_back(std::move(w));
}

}  // namespace

Result<ParsedDocument> ParseWithTextLayer(PdfDocument& doc, const TextBackendOptions& options) {
  ParsedDocument out;
  out.backend = "text";
  out.num_pages = doc.page_count();
  out.warnings = doc.TakeWarnings();

  // Pass 1: the text layer of every page (the style and the running headers need all of them).
  std::vector<std::optional<PageContent>> contents(static_cast<size_t>(out.num_pages));
  std::vector<PageResult> pages(static_cast<size_t>(out.num_pages));
  for (int i = 0; i < out.num_pages; ++i) {
    if (Cancelled(options)) return Status(StatusCode::kCancelled, "document parsing was cancelled");
    PageResult& page = pages[static_cast<size_t>(i)];
    page.page_idx = i;
    auto content = ExtractPageContent(doc, i);
    AppendWarnings(page.warnings, doc.TakeWarnings());
    if (!content.ok()) {
      Status s = content.status();
      if (s.code() == StatusCode::kResourceExhausted || s.code() == StatusCode::kDeadlineExceeded ||
          s.code() == StatusCode::kCancelled) {
        return s.WithContext("page " + std::to_string(i + 1));
      }
      page.status = PageStatus::kFailed;
      page.error = s.message();
      continue;
    }
    page.width_pt = content->page.width();
    page.height_pt = content->page.height();
    contents[static_cast<size_t>(i)] = std::move(*content);
  }
  std::vector<PageContent> with_text;
  for (const auto& c : contents) {
    if (c && c->num_chars > 0) with_text.push_back(*c);
  }
  DocumentStyle style = AnalyzeStyle(with_text);
  with_text.clear();

  // Pass 2: layout, crops, progress.
  for (int i = 0; i < out.num_pages; ++i) {
    if (Cancelled(options)) return Status(StatusCode::kCancelled, "document parsing was cancelled");
    PageResult& page = pages[static_cast<size_t>(i)];
    auto& content = contents[static_cast<size_t>(i)];
    if (content && content->num_chars == 0) {
      page.status = PageStatus::kNeedsOcr;
      page.error = kNeedsOcr;
    } else if (content) {
      page.blocks = LayoutPage(*content, style);
      bool wants_crop = false;
      for (const Block& b : page.blocks) wants_crop = wants_crop || BlockTypeHasCrop(b.type);
      if (options.crop_images && wants_crop) {
        auto render = doc.RenderPage(i, options.crop_dpi);
        AppendWarnings(page.warnings, doc.TakeWarnings());
        if (!render.ok()) {
          Status s = render.status();
          if (s.code() == StatusCode::kDeadlineExceeded || s.code() == StatusCode::kCancelled) return s;
          page.warnings.push_back("no image crops: " + s.message());
        } else {
          Status crop = CropBlockImages(*render, page, out, options.jpeg_quality);
          if (!crop.ok()) page.warnings.push_back("no image crops: " + crop.message());
        }
      }
    }
    content.reset();
    out.pages.push_back(std::move(page));
    if (options.on_page) {
      PageProgress progress{i, out.num_pages, &out.pages.back()};
      if (!options.on_page(progress)) return Status(StatusCode::kCancelled, "stopped by the progress callback");
    }
  }
  return out;
}

Result<ParsedDocument> ParseWithTextLayer(std::span<const uint8_t> pdf, const DocumentLimits& limits,
                                          const TextBackendOptions& options) {
  MINERU_ASSIGN_OR_RETURN(auto doc, PdfDocument::Open(pdf, limits, options.cancel));
  return ParseWithTextLayer(*doc, options);
}

}  // namespace mineru::document
