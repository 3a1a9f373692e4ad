#include "tests/document/test_pdf.h"

#include <mupdf/fitz.h>
#include <mupdf/pdf.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "document/output_writer.h"
#include "document/text_backend.h"

namespace mineru::document::testing {

std::vector<uint8_t> MakePdf(const std::vector<TestPage>& pages) {
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  std::vector<uint8_t> out;
  pdf_document* doc = nullptr;
  fz_buffer* out_buf = nullptr;
  fz_output* out_stream = nullptr;
  fz_var(doc);
  fz_var(out_buf);
  fz_var(out_stream);
  fz_try(ctx) {
    doc = pdf_create_document(ctx);
    fz_font* helv = fz_new_base14_font(ctx, "Helvetica");
    fz_font* bold = fz_new_base14_font(ctx, "Helvetica-Bold");
    pdf_obj* f1 = pdf_add_simple_font(ctx, doc, helv, PDF_SIMPLE_ENCODING_LATIN);
    pdf_obj* f2 = pdf_add_simple_font(ctx, doc, bold, PDF_SIMPLE_ENCODING_LATIN);
    fz_drop_font(ctx, helv);
    fz_drop_font(ctx, bold);
    for (const TestPage& p : pages) {
      pdf_obj* resources = pdf_new_dict(ctx, doc, 1);
      pdf_obj* fonts = pdf_dict_put_dict(ctx, resources, PDF_NAME(Font), 2);
      pdf_dict_puts(ctx, fonts, "F1", f1);
      pdf_dict_puts(ctx, fonts, "F2", f2);
      fz_buffer* contents = fz_new_buffer_from_copied_data(
          ctx, reinterpret_cast<const unsigned char*>(p.content.data()), p.content.size());
      fz_rect box = {0, 0, static_cast<float>(p.width_pt), static_cast<float>(p.height_pt)};
      pdf_obj* page = pdf_add_page(ctx, doc, box, 0, resources, contents);
      pdf_insert_page(ctx, doc, -1, page);
      pdf_drop_obj(ctx, page);
      pdf_drop_obj(ctx, resources);
      fz_drop_buffer(ctx, contents);
    }
    pdf_drop_obj(ctx, f1);
    pdf_drop_obj(ctx, f2);
    out_buf = fz_new_buffer(ctx, 4096);
    out_stream = fz_new_output_with_buffer(ctx, out_buf);
    pdf_write_options opts = pdf_default_write_options;
    pdf_write_document(ctx, doc, out_stream, &opts);
    fz_close_output(ctx, out_stream);
    unsigned char* data = nullptr;
    size_t size = fz_buffer_storage(ctx, out_buf, &data);
    out.assign(data, data + size);
  }
  fz_always(ctx) {
    fz_drop_output(ctx, out_stream);
    fz_drop_buffer(ctx, out_buf);
    pdf_drop_document(ctx, doc);
  }
  fz_catch(ctx) { out.clear(); }
  fz_drop_context(ctx);
  return out;
}

std::vector<uint8_t> MakePdfWithFont(const std::string& content, const std::string& font_dict,
                                     const std::vector<std::string>& more_objects,
                                     const std::string& more_resources) {
  std::vector<std::string> objects = {
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 6 0 R /F3 5 0 R >> " +
          more_resources + " >> /Contents 4 0 R >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream",
      font_dict,
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"};
  objects.insert(objects.end(), more_objects.begin(), more_objects.end());
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(offsets.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char entry[24];
    std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", off);
    pdf += entry;
  }
  pdf += "trailer\n<< /Size " + std::to_string(offsets.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return {pdf.begin(), pdf.end()};
}

std::vector<uint8_t> MakePdfOfPicture(const Picture& picture, double x, double y, double w, double h,
                                      const std::string& content) {
  const std::string pixels(picture.grey.begin(), picture.grey.end());
  const std::string image = "<< /Type /XObject /Subtype /Image /Width " + std::to_string(picture.width) +
                            " /Height " + std::to_string(picture.height) +
                            " /ColorSpace /DeviceGray /BitsPerComponent 8 /Length " +
                            std::to_string(pixels.size()) + " >>\nstream\n" + pixels + "\nendstream";
  const std::string show = "q " + std::to_string(w) + " 0 0 " + std::to_string(h) + " " + std::to_string(x) +
                           " " + std::to_string(y) + " cm /Im1 Do Q\n";
  return MakePdfWithFont(show + content, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", {image},
                         "/XObject << /Im1 7 0 R >>");
}

std::string TextAt(double x, double y, double size, const std::string& text, bool bold) {
  return "BT /" + std::string(bold ? "F2" : "F1") + " " + std::to_string(size) + " Tf " + std::to_string(x) +
         " " + std::to_string(y) + " Td (" + text + ") Tj ET\n";
}

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<ReferencedPdf> ReferencedPdfs(const std::filesystem::path& dir) {
  std::vector<ReferencedPdf> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".pdf") continue;
    std::filesystem::path ref = e.path();
    ref.replace_filename(e.path().stem().string() + "_ref.md");
    out.push_back({e.path(), ref});
  }
  std::ranges::sort(out, {}, &ReferencedPdf::pdf);
  return out;
}

std::string TextLayerMarkdown(const std::filesystem::path& pdf) {
  TextBackendOptions options;
  options.crop_images = false;
  auto parsed = ParseWithTextLayer(ReadFileBytes(pdf.string()), {}, options);
  EXPECT_TRUE(parsed.ok()) << pdf << ": " << parsed.status().ToString();
  return parsed.ok() ? WriteMarkdown(*parsed) : "";
}

}  // namespace mineru::document::testing
