// Builds small PDFs in memory for tests with MuPDF's own PDF writer: each page is a content stream that
// may use /F1 (Helvetica) and /F2 (Helvetica-Bold).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mineru::document::testing {

struct TestPage {
  std::string content;  // PDF content stream
  double width_pt = 612;
  double height_pt = 792;
};

std::vector<uint8_t> MakePdf(const std::vector<TestPage>& pages);
// A one-page PDF (612 x 792) written byte by byte, whose content stream may use /F3 = `font_dict` (a
// font dictionary as PDF text, for fonts MakePdf cannot write: custom encodings, odd widths, Type3) and
// /F1 (Helvetica). `more_objects` are objects 7, 8, ... for the font to refer to (a Type3 font's glyph
// procedures, a ToUnicode map); `more_resources` goes into the page's resources ("/Shading << /Sh1 7 0 R
// >>").
std::vector<uint8_t> MakePdfWithFont(const std::string& content, const std::string& font_dict,
                                     const std::vector<std::string>& more_objects = {},
                                     const std::string& more_resources = "");
// A one-page PDF (612 x 792) showing `grey` (8-bit grey pixels, `width` x `height`, row by row from the
// top) in the rectangle (x, y, w, h) of PDF coordinates, then `content` (may use /F1, Helvetica) over it.
struct Picture {
  std::vector<uint8_t> grey;
  int width = 0;
  int height = 0;
};
std::vector<uint8_t> MakePdfOfPicture(const Picture& picture, double x, double y, double w, double h,
                                      const std::string& content = "");
// One line of Helvetica text at (x, y) in PDF coordinates (origin bottom-left).
std::string TextAt(double x, double y, double size, const std::string& text, bool bold = false);
// Reads a whole file (empty on error).
std::vector<uint8_t> ReadFileBytes(const std::string& path);
std::string ReadFileText(const std::string& path);

// A set of pages of known content: each NAME.pdf in `dir`, in name order, with NAME_ref.md beside it.
struct ReferencedPdf {
  std::filesystem::path pdf;
  std::filesystem::path ref;
};
std::vector<ReferencedPdf> ReferencedPdfs(const std::filesystem::path& dir);
// `pdf` read by the text-layer backend (images not cropped) as Markdown; a failure fails the test and
// gives "".
std::string TextLayerMarkdown(const std::filesystem::path& pdf);

}  // namespace mineru::document::testing
