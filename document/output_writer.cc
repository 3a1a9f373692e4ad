#include "document/output_writer.h"

#include "document/pdf_document.h"

namespace mineru::document {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

std::string_view OutputRoleName(OutputRole role) {
  switch (role) {
    case OutputRole::kMarkdown:
      return "markdown";
    case OutputRole::kContentList:
      return "content_list";
    case OutputRole::kMiddleJson:
      return "middle_json";
    case OutputRole::kModelOutput:
      return "model_output";
    case OutputRole::kImage:
      return "image";
    case OutputRole::kLayoutPdf:
      return "layout_pdf";
  }
  return "unknown";
}

const OutputFile* OutputFiles::Find(OutputRole role) const {
  for (const OutputFile& f : files) {
    if (f.role == role) return &f;
  }
  return nullptr;
}

Status ValidateOutputName(std::string_view name) {
  if (name.empty()) return InvalidArgument("output name is empty");
  if (name.size() > 200) return InvalidArgument("output name is longer than 200 bytes");
  if (name == "." || name == "..") return InvalidArgument("output name may not be \".\" or \"..\"");
  for (char c : name) {
    if (c == '/' || c == '\\' || c == '\0') {
      return InvalidArgument("output name may not contain '/', '\\' or NUL: \"" + std::string(name) + "\"");
    }
    if (static_cast<unsigned char>(c) < 0x20)
      return InvalidArgument("output name contains a control character");
  }
  return Status::Ok();
}

Result<OutputFiles> WriteOutputs(const ParsedDocument& doc, std::string_view name, PdfDocument* source,
                                 const OutputOptions& options) {
  MINERU_RETURN_IF_ERROR(ValidateOutputName(name));
  std::string stem(name);
  OutputFiles out;
  if (options.markdown) out.files.push_back({OutputRole::kMarkdown, stem + ".md", Bytes(WriteMarkdown(doc))});
  if (options.content_list) {
    out.files.push_back(
        {OutputRole::kContentList, stem + "_content_list.json", Bytes(WriteContentList(doc))});
  }
  if (options.middle_json) {
    out.files.push_back({OutputRole::kMiddleJson, stem + "_middle.json", Bytes(WriteMiddleJson(doc))});
  }
  if (options.model_output && doc.backend == "vlm") {
    out.files.push_back({OutputRole::kModelOutput, stem + "_model_output.txt", Bytes(WriteModelOutput(doc))});
  }
  if (options.images) {
    for (const auto& [path, jpeg] : doc.images) out.files.push_back({OutputRole::kImage, path, jpeg});
  }
  if (options.layout_pdf && source != nullptr) {
    MINERU_ASSIGN_OR_RETURN(std::vector<uint8_t> pdf, WriteLayoutPdf(doc, *source));
    out.files.push_back({OutputRole::kLayoutPdf, stem + "_layout.pdf", std::move(pdf)});
  }
  return out;
}

}  // namespace mineru::document
