#include "document/text_backend.h"

#include <optional>

#include "document/hyphen_join.h"
#include "document/ocr.h"
#include "document/running_text.h"
#include "document/text_layout.h"
#include "document/text_lines.h"

namespace mineru::document {
namespace {

constexpr char kNeedsOcr[] = "needs OCR or a model: the page has no usable text layer";
constexpr char kReadFromPicture[] =
    "the page is a page-size picture under text in its margins only (a stamp over a scan); read from its "
    "pixels";

bool Cancelled(const TextBackendOptions& options) {
  return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
}

void AppendWarnings(std::vector<std::string>& to, std::vector<std::string> from) {
  for (std::string& w : from) to.push_back(std::move(w));
}

bool EndsDocument(const Status& s) {
  return s.code() == StatusCode::kResourceExhausted || s.code() == StatusCode::kDeadlineExceeded ||
         s.code() == StatusCode::kCancelled;
}

// Reads page `i` from its pixels: a render at the OCR resolution, Tesseract, crops of its image regions
// from the same render. A page OCR cannot help stays kNeedsOcr with the reason; a document limit or a
// cancellation ends the document.
Status OcrPageInto(PdfDocument& doc, int i, const TextBackendOptions& options, PageResult& page,
                   ParsedDocument& out) {
  auto render = doc.RenderPage(i, options.ocr.dpi);
  AppendWarnings(page.warnings, doc.TakeWarnings());
  if (!render.ok()) {
    if (EndsDocument(render.status()) && !render.status().message().starts_with("page render of")) {
      return render.status();
    }
    page.status = PageStatus::kNeedsOcr;
    page.error = std::string(kNeedsOcr) + "; no render for OCR: " + render.status().message();
    return Status::Ok();
  }
  auto stop = [&]() -> Status {
    if (Cancelled(options)) return Status(StatusCode::kCancelled, "document parsing was cancelled");
    return doc.LimitStatus();
  };
  auto ocr = RecognizePage(*render, options.ocr, stop);
  if (!ocr.ok()) {
    if (EndsDocument(ocr.status())) return ocr.status().WithContext("page " + std::to_string(i + 1));
    page.status = PageStatus::kNeedsOcr;
    page.error = std::string(kNeedsOcr) + "; OCR failed: " + ocr.status().message();
    return Status::Ok();
  }
  page.blocks = std::move(ocr->blocks);
  AppendWarnings(page.warnings, std::move(ocr->warnings));
  if (page.blocks.empty()) page.warnings.push_back("OCR found no text on the page");
  if (ocr->rotation_deg != 0) {
    page.warnings.push_back("OCR: the page's content is turned " + std::to_string(ocr->rotation_deg) +
                            " degrees clockwise; read upright");
  }
  if (options.crop_images) {
    MINERU_RETURN_IF_ERROR(CropBlockImages(*render, page, out, options.jpeg_quality));
  }
  return Status::Ok();
}

// A page-size picture under text in its margins: OCR reads it, and its reading replaces the page's blocks
// laid out from the text layer when the picture holds clearly more text (a scan under a stamp, not a
// cover's photo under its title). Returns whether it did.
Result<bool> ReadPictureInstead(PdfDocument& doc, int i, const TextBackendOptions& options, int layer_chars,
                                PageResult& page, ParsedDocument& out) {
  PageResult read;
  ParsedDocument crops;
  MINERU_RETURN_IF_ERROR(OcrPageInto(doc, i, options, read, crops));
  if (read.status != PageStatus::kOk) {
    page.warnings.push_back("the page's picture was not read: " + read.error);
    return false;
  }
  if (!OcrHoldsMore(read.blocks, layer_chars)) return false;
  page.blocks = std::move(read.blocks);
  page.warnings.push_back(kReadFromPicture);
  AppendWarnings(page.warnings, std::move(read.warnings));
  out.images.merge(crops.images);
  return true;
}

// Crops of the figures and tables laid out from the text layer; each renders only its own region.
Status CropLaidOutBlocks(PdfDocument& doc, int i, const TextBackendOptions& options, PageResult& page,
                         ParsedDocument& out) {
  for (Block& b : page.blocks) {
    if (!options.crop_images || !BlockTypeHasCrop(b.type) || b.bbox.empty()) continue;
    auto render = doc.RenderRegion(i, options.crop_dpi, b.bbox);
    AppendWarnings(page.warnings, doc.TakeWarnings());
    if (!render.ok()) {
      Status s = render.status();
      // A limit of the document ends it; a crop over the pixel cap only loses that crop.
      bool pixel_cap = s.message().starts_with("page render of");
      if (s.code() == StatusCode::kDeadlineExceeded || s.code() == StatusCode::kCancelled ||
          (s.code() == StatusCode::kResourceExhausted && !pixel_cap)) {
        return s;
      }
      page.warnings.push_back("no crop for a " + std::string(BlockTypeName(b.type)) + ": " + s.message());
      continue;
    }
    auto jpeg = EncodeJpeg(*render, options.jpeg_quality);
    if (!jpeg.ok()) {
      page.warnings.push_back("no crop: " + jpeg.status().message());
      continue;
    }
    b.image_path = ImagePathForBytes(*jpeg);
    out.images.emplace(b.image_path, std::move(*jpeg));
  }
  return Status::Ok();
}

}  // namespace

Result<ParsedDocument> ParseWithTextLayer(PdfDocument& doc, const TextBackendOptions& options) {
  ParsedDocument out;
  out.backend = "text";
  out.num_pages = doc.page_count();
  out.warnings = doc.TakeWarnings();
  MINERU_ASSIGN_OR_RETURN(const ResolvedPages range, ResolvePageRange(options.pages, out.num_pages));
  const auto slot = [&](int page_index) { return static_cast<size_t>(page_index - range.first); };

  // Pass 1: the text layer of every page (the style and the running headers need all of them).
  std::vector<std::optional<PageContent>> contents(static_cast<size_t>(range.count()));
  std::vector<PageResult> pages(static_cast<size_t>(range.count()));
  for (int i = range.first; i <= range.last; ++i) {
    if (Cancelled(options)) return Status(StatusCode::kCancelled, "document parsing was cancelled");
    PageResult& page = pages[slot(i)];
    page.page_idx = i;
    auto content = ExtractPageContent(doc, i);
    AppendWarnings(page.warnings, doc.TakeWarnings());
    if (!content.ok()) {
      Status s = content.status();
      if (EndsDocument(s)) return s.WithContext("page " + std::to_string(i + 1));
      page.status = PageStatus::kFailed;
      page.error = s.message();
      continue;
    }
    const bool sideways = content->turned % 180 != 0;
    page.width_pt = sideways ? content->page.height() : content->page.width();
    page.height_pt = sideways ? content->page.width() : content->page.height();
    if (content->turned != 0) {
      page.warnings.push_back("the page's text is turned " + std::to_string(360 - content->turned) +
                              " degrees clockwise; read upright");
    }
    contents[slot(i)] = std::move(*content);
  }
  // Whether each page is read from its text layer or its pixels.
  std::vector<TextLayerUse> uses(contents.size(), TextLayerUse::kUsable);
  std::vector<PageContent> with_text;
  for (size_t k = 0; k < contents.size(); ++k) {
    if (contents[k]) uses[k] = JudgeTextLayer(*contents[k]);
    if (contents[k] && uses[k] == TextLayerUse::kUsable) with_text.push_back(*contents[k]);
  }
  DocumentStyle style = AnalyzeStyle(with_text);
  with_text.clear();

  // Pass 2: the layout of every page with a text layer (cheap next to crops and OCR), then the words
  // hyphenated across a column or page break.
  std::vector<bool> laid_out(pages.size(), false);
  std::vector<FlowEnds> ends(pages.size());
  for (size_t k = 0; k < pages.size(); ++k) {
    const bool picture = uses[k] == TextLayerUse::kMarginsOverPicture;
    if (!contents[k] || (uses[k] != TextLayerUse::kUsable && !picture)) continue;
    pages[k].blocks = LayoutPage(*contents[k], style, &ends[k]);
    for (Block& b : pages[k].blocks) b.bbox = TurnBack(b.bbox, contents[k]->turned);
    JoinHyphenatedWords(pages[k].blocks, &ends[k]);
    // A picture's page may be read from its pixels instead: no paragraph runs into it or out of it.
    laid_out[k] = !picture;
    if (picture || k == 0 || !laid_out[k - 1]) continue;
    if (!JoinParagraphAcrossPages(pages[k - 1].blocks, ends[k - 1], pages[k].blocks, ends[k]))
      JoinHyphenatedWordsAcrossPages(pages[k - 1].blocks, pages[k].blocks, &ends[k]);
  }

  // Pass 3: OCR, crops, progress.
  OcrRunningText ocr_running;
  for (int i = range.first; i <= range.last; ++i) {
    if (Cancelled(options)) return Status(StatusCode::kCancelled, "document parsing was cancelled");
    PageResult& page = pages[slot(i)];
    auto& content = contents[slot(i)];
    const TextLayerUse use = uses[slot(i)];
    const bool unusable = use == TextLayerUse::kEmpty || use == TextLayerUse::kGarbage;
    if (content && unusable && options.ocr.enabled) {
      MINERU_RETURN_IF_ERROR(OcrPageInto(doc, i, options, page, out));
      ocr_running.Filter(page.blocks);
    } else if (content && unusable) {
      page.status = PageStatus::kNeedsOcr;
      page.error = kNeedsOcr;
    } else if (content) {
      bool read = false;
      if (use == TextLayerUse::kMarginsOverPicture && options.ocr.enabled) {
        MINERU_ASSIGN_OR_RETURN(read, ReadPictureInstead(doc, i, options, content->num_chars, page, out));
      }
      if (read) {
        ocr_running.Filter(page.blocks);
      } else {
        MINERU_RETURN_IF_ERROR(CropLaidOutBlocks(doc, i, options, page, out));
      }
    }
    content.reset();
    out.pages.push_back(std::move(page));
    if (options.on_page) {
      PageProgress progress{i, range.count(), &out.pages.back()};
      if (!options.on_page(progress))
        return Status(StatusCode::kCancelled, "stopped by the progress callback");
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
