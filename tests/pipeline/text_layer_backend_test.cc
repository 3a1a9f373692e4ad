// The text-layer backend as the daemon opens it (OpenBackend from a Config): the OCR keys of the
// config reach the parse of a scanned page (../shared/corpus/docling's ocr_test.pdf), and a reload
// changes them for the next job.
#include "pipeline/text_layer_backend.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "common/config.h"
#include "pipeline/backend_factory.h"
#include "tests/support/shared_data.h"

namespace mineru::pipeline {
namespace {

std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The Markdown of one parse of `pdf` by `backend`.
std::string ParseToMarkdown(Backend& backend, const std::vector<uint8_t>& pdf) {
  BackendInput input;
  input.document = pdf;
  input.name = "scan";
  CancelFlag cancel{false};
  auto out = backend.Parse(
      input, [](int64_t, int64_t, std::shared_ptr<const PageOutput>) {}, cancel);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  for (const OutputFile& f : out->files) {
    if (f.path == "scan.md") return f.data;
  }
  ADD_FAILURE() << "no scan.md in the output";
  return {};
}

class TextLayerBackendOcrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto shared = testing::SharedDir();
    if (!shared) GTEST_SKIP() << "../shared not found";
    scan_ = ReadBytes(*shared / "corpus/docling/pdf/ocr_test.pdf");
    ASSERT_FALSE(scan_.empty());
  }
  std::unique_ptr<Backend> Open(const std::string& config_text) {
    Config config;
    Status st = ConfigSchemaFor().LoadText(config_text, "<test>", &config);
    EXPECT_TRUE(st.ok()) << st.ToString();
    // The text layer runs in the sandboxed document workers, as minerud runs it.
    config.document_worker = MINERUD_WORKER_PATH;
    auto opened = OpenBackend(config);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? std::move(opened->backend) : nullptr;
  }
  std::vector<uint8_t> scan_;
};

TEST_F(TextLayerBackendOcrTest, DefaultConfigReadsTheScan) {
  auto backend = Open("");
  ASSERT_NE(backend, nullptr);
  std::string md = ParseToMarkdown(*backend, scan_);
  EXPECT_NE(md.find("Docling bundles PDF document conversion"), std::string::npos) << md;
  EXPECT_EQ(md.find("needs OCR"), std::string::npos) << md;
}

TEST_F(TextLayerBackendOcrTest, OcrOffLeavesTheScanMarkedAsNeedingOcr) {
  auto backend = Open("ocr = false\n");
  ASSERT_NE(backend, nullptr);
  std::string md = ParseToMarkdown(*backend, scan_);
  EXPECT_NE(md.find("needs OCR"), std::string::npos) << md;
  EXPECT_EQ(md.find("Docling"), std::string::npos) << md;
}

TEST_F(TextLayerBackendOcrTest, MissingLanguageDataIsReportedWithItsName) {
  auto backend = Open("ocr_languages = xx_no_such_language\n");
  ASSERT_NE(backend, nullptr);
  std::string md = ParseToMarkdown(*backend, scan_);
  EXPECT_NE(md.find("needs OCR"), std::string::npos) << md;
  EXPECT_NE(md.find("xx_no_such_language"), std::string::npos) << md;
}

TEST_F(TextLayerBackendOcrTest, ReloadChangesOcrForTheNextJob) {
  auto backend = Open("ocr = false\n");
  ASSERT_NE(backend, nullptr);
  Config on;
  on.document_worker = MINERUD_WORKER_PATH;
  ASSERT_TRUE(backend->Reconfigure(on).ok());
  EXPECT_NE(ParseToMarkdown(*backend, scan_).find("Docling bundles"), std::string::npos);
  Config off;
  off.document_worker = MINERUD_WORKER_PATH;
  off.ocr = false;
  ASSERT_TRUE(backend->Reconfigure(off).ok());
  EXPECT_NE(ParseToMarkdown(*backend, scan_).find("needs OCR"), std::string::npos);
  // A reload naming a worker that cannot run is refused, and the running one is kept.
  Config missing;
  missing.document_worker = "/nonexistent/minerud-worker";
  EXPECT_FALSE(backend->Reconfigure(missing).ok());
  EXPECT_NE(ParseToMarkdown(*backend, scan_).find("needs OCR"), std::string::npos);
}

}  // namespace
}  // namespace mineru::pipeline
