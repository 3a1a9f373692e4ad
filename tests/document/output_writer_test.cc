#include "document/output_writer.h"

#include <gtest/gtest.h>

#include "document/pdf_document.h"
#include "document/text_backend.h"
#include "tests/document/test_pdf.h"

namespace mineru::document {
namespace {

using testing::ReadFileBytes;

TEST(OutputWriterTest, NamesAreValidated) {
  EXPECT_TRUE(ValidateOutputName("report 2024").ok());
  EXPECT_TRUE(ValidateOutputName("résumé").ok());
  for (std::string bad :
       {std::string(""), std::string("."), std::string(".."), std::string("a/b"), std::string("..\\x"),
        std::string("a\0b", 3), std::string("tab\there"), std::string(201, 'x')}) {
    Status s = ValidateOutputName(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
  }
  ParsedDocument doc;
  EXPECT_EQ(WriteOutputs(doc, "../escape", nullptr).status().code(), StatusCode::kInvalidArgument);
}

TEST(OutputWriterTest, FilesAndRoles) {
  ParsedDocument doc;
  doc.backend = "text";
  PageResult p;
  p.blocks.push_back(Block{BlockType::kText, {0, 0, 10, 10}, "hello", 0, -1, ""});
  doc.pages = {p};
  doc.images["images/ab.jpg"] = {0xFF, 0xD8, 0xFF, 0xD9};
  auto files = WriteOutputs(doc, "paper", nullptr);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_NE(files->Find(OutputRole::kMarkdown), nullptr);
  EXPECT_EQ(files->Find(OutputRole::kMarkdown)->relative_path, "paper.md");
  EXPECT_EQ(std::string(files->Find(OutputRole::kMarkdown)->bytes.begin(),
                        files->Find(OutputRole::kMarkdown)->bytes.end()),
            "hello\n");
  EXPECT_EQ(files->Find(OutputRole::kContentList)->relative_path, "paper_content_list.json");
  EXPECT_EQ(files->Find(OutputRole::kMiddleJson)->relative_path, "paper_middle.json");
  EXPECT_EQ(files->Find(OutputRole::kModelOutput), nullptr);  // text backend: no model output
  EXPECT_EQ(files->Find(OutputRole::kLayoutPdf), nullptr);    // no source given
  ASSERT_NE(files->Find(OutputRole::kImage), nullptr);
  EXPECT_EQ(files->Find(OutputRole::kImage)->relative_path, "images/ab.jpg");

  doc.backend = "vlm";
  OutputOptions only_model;
  only_model.markdown = only_model.content_list = only_model.middle_json = only_model.images = false;
  auto vlm = WriteOutputs(doc, "paper", nullptr, only_model);
  ASSERT_TRUE(vlm.ok());
  ASSERT_EQ(vlm->files.size(), 1u);
  EXPECT_EQ(vlm->files[0].relative_path, "paper_model_output.txt");
  EXPECT_EQ(OutputRoleName(OutputRole::kLayoutPdf), "layout_pdf");
}

TEST(OutputWriterTest, LayoutPdfHasOnePagePerParsedPage) {
  std::vector<uint8_t> pdf = ReadFileBytes(MINERU_EXAMPLES_DIR "/sample.pdf");
  ASSERT_FALSE(pdf.empty());
  auto doc = PdfDocument::Open(pdf, {});
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  auto parsed = ParseWithTextLayer(**doc, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto files = WriteOutputs(*parsed, "sample", doc->get());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  const OutputFile* layout = files->Find(OutputRole::kLayoutPdf);
  ASSERT_NE(layout, nullptr);
  EXPECT_EQ(layout->relative_path, "sample_layout.pdf");
  auto reopened = PdfDocument::Open(layout->bytes, {});
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->page_count(), 2);
  auto size = (*reopened)->GetPageSize(0);
  ASSERT_TRUE(size.ok());
  EXPECT_NEAR(size->width_pt, 612, 0.5);
  EXPECT_NEAR(size->height_pt, 792, 0.5);
  // The boxes are drawn in colour on the page: a render has saturated pixels the grey sample lacks.
  auto render = (*reopened)->RenderPage(0, 150);
  ASSERT_TRUE(render.ok());
  int red = 0;
  for (size_t i = 0; i + 2 < render->pixels.size(); i += 3) {
    if (render->pixels[i] > 150 && render->pixels[i + 1] < 110 && render->pixels[i + 2] < 110) ++red;
  }
  EXPECT_GT(red, 300) << "title boxes (red) should be visible";
}

}  // namespace
}  // namespace mineru::document
