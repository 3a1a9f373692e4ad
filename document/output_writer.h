// Writers: a ParsedDocument -> MinerU's output files, in memory. The daemon never opens user paths; the
// client writes these files under its output folder. Markdown links images as images/<sha256>.jpg, so the
// files land next to NAME.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "document/block.h"

namespace mineru::document {

class PdfDocument;

enum class OutputRole {
  kMarkdown,     // NAME.md
  kContentList,  // NAME_content_list.json
  kMiddleJson,   // NAME_middle.json
  kModelOutput,  // NAME_model_output.txt (VLM backend only)
  kImage,        // images/<sha256>.jpg
  kLayoutPdf,    // NAME_layout.pdf: original pages with numbered, coloured block boxes
};
std::string_view OutputRoleName(OutputRole role);

struct OutputFile {
  OutputRole role = OutputRole::kMarkdown;
  std::string relative_path;  // "NAME.md", "images/<hash>.jpg", ...
  std::vector<uint8_t> bytes;
};

struct OutputFiles {
  std::vector<OutputFile> files;
  const OutputFile* Find(OutputRole role) const;  // the first file with that role, or nullptr
};

struct OutputOptions {
  bool markdown = true;
  bool content_list = true;
  bool middle_json = true;
  bool model_output = true;  // only written when the backend is "vlm"
  bool images = true;
  bool layout_pdf = true;  // needs `source`
};

// NAME must be a plain file stem: 1..200 bytes of UTF-8, no '/', '\\' or NUL, not "." or "..".
Status ValidateOutputName(std::string_view name);

// The individual writers (pure functions of the blocks).
std::string WriteMarkdown(const ParsedDocument& doc);
std::string WriteContentList(const ParsedDocument& doc);
std::string WriteMiddleJson(const ParsedDocument& doc);
std::string WriteModelOutput(const ParsedDocument& doc);  // pages joined by a line of 50 dashes
// The source's pages with each block's box drawn, coloured by type and numbered in reading order.
Result<std::vector<uint8_t>> WriteLayoutPdf(const ParsedDocument& doc, PdfDocument& source);

// Every file the options ask for. `source` may be null (then no layout PDF).
Result<OutputFiles> WriteOutputs(const ParsedDocument& doc, std::string_view name, PdfDocument* source,
                                 const OutputOptions& options = {});

}  // namespace mineru::document
