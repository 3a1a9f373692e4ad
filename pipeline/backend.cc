#include "pipeline/backend.h"

#include <algorithm>
#include <chrono>
#include <climits>

#include "document/output_writer.h"
#include "document/pdf_document.h"

namespace mineru::pipeline {

Status ValidateOutputPath(std::string_view path) {
  if (path.empty() || path.size() > 1024) return InvalidArgument("output path must be 1-1024 bytes");
  if (path.front() == '/') return InvalidArgument("output path must be relative");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return InvalidArgument("output path '" + std::string(path) + "' has an empty, '.' or '..' component");
    }
    start = end + 1;
  }
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\') {
      return InvalidArgument("output path has a control character or a backslash");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<document::PdfDocument>> OpenBackendDocument(const BackendInput& input,
                                                                   const CancelFlag& cancel) {
  document::DocumentLimits limits;
  if (input.memory_limit_bytes > 0) limits.max_memory_bytes = input.memory_limit_bytes;
  if (input.max_pages > 0) limits.max_pages = static_cast<int>(std::min<int64_t>(input.max_pages, INT_MAX));
  if (!input.deadline.never()) {
    int64_t left_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(input.deadline.at() - MonoNow()).count();
    if (left_ms <= 0) return DeadlineExceeded("the job's time limit passed before parsing started");
    limits.time_budget_ms = left_ms;
  } else {
    limits.time_budget_ms = 0;
  }
  MINERU_RETURN_IF_ERROR(document::ValidateLimits(limits));
  return document::PdfDocument::Open(input.document, limits, &cancel);
}

std::shared_ptr<const PageOutput> MakePageOutput(const document::PageResult& page, std::string_view backend) {
  document::ParsedDocument one;
  one.backend = std::string(backend);
  one.pages.push_back(page);
  auto out = std::make_shared<PageOutput>();
  out->page_index = static_cast<uint32_t>(page.page_idx);
  out->markdown = document::WriteMarkdown(one);
  out->content_list = document::WriteContentList(one);
  out->model_output = page.model_output;
  return out;
}

BackendOutput ToBackendOutput(document::OutputFiles files, int64_t num_pages) {
  BackendOutput out;
  out.num_pages = num_pages;
  out.files.reserve(files.files.size());
  for (document::OutputFile& f : files.files) {
    out.files.push_back(OutputFile{std::move(f.relative_path), std::string(f.bytes.begin(), f.bytes.end())});
  }
  return out;
}

}  // namespace mineru::pipeline
