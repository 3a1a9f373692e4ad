#include "pipeline/page_render.h"

namespace mineru::pipeline {

Result<RenderedPage> RenderPageForModel(document::PdfDocument& pdf, int page_index, double dpi) {
  RenderedPage r;
  r.page_index = page_index;
  auto size = pdf.GetPageSize(page_index);
  auto image = size.ok() ? pdf.RenderPage(page_index, dpi) : Result<document::RgbImage>(size.status());
  if (!image.ok()) {
    const Status& s = image.status();
    if (s.code() == StatusCode::kDeadlineExceeded || s.code() == StatusCode::kCancelled ||
        (s.code() == StatusCode::kResourceExhausted && !s.message().starts_with("page render of"))) {
      return s.WithContext("page " + std::to_string(page_index + 1));
    }
    r.error = s.message();
    return r;
  }
  r.size = *size;
  r.image = std::move(*image);
  return r;
}

}  // namespace mineru::pipeline
