// One page rendered for a model backend: the render at the model's DPI and the page's size in points,
// with the rule for what a failed render means. A limit of the whole document (its time, memory or
// cancellation) ends the job; a page MuPDF cannot draw (or over the pixel cap) fails alone.
#pragma once

#include <string>

#include "common/result.h"
#include "document/pdf_document.h"
#include "document/rgb_image.h"

namespace mineru::pipeline {

struct RenderedPage {
  int page_index = 0;
  document::PageSize size;
  document::RgbImage image;
  std::string error;  // set when this page alone could not be rendered
};

// The error status when the job must end; else the page, rendered or with `error` set.
Result<RenderedPage> RenderPageForModel(document::PdfDocument& pdf, int page_index, double dpi);

}  // namespace mineru::pipeline
