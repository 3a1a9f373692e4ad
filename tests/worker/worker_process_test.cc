// minerud's side of a document worker against the real minerud-worker: the API a backend uses (start,
// Ready, Open, Render) gives the same page image as rendering in process, through a sealed memfd.
#include "worker/worker_process.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "document/pdf_document.h"
#include "shm/document_buffer.h"
#include "tests/support/shared_data.h"

namespace mineru::worker {
namespace {

TEST(WorkerProcessTest, RendersAPageAsInProcessThroughSharedMemory) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  std::ifstream in(shared / "corpus/docling/pdf/normal_4pages.pdf", std::ios::binary);
  std::string pdf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(pdf.empty());
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(pdf.data()), pdf.size());
  auto buffer = shm::DocumentBuffer::CopyOf(bytes);
  ASSERT_TRUE(buffer.ok());
  auto memfd = buffer->Seal();
  ASSERT_TRUE(memfd.ok());

  WorkerOptions options;
  options.path = MINERUD_WORKER_PATH;
  options.address_space_bytes = 2ull << 30;
  options.cpu_seconds = 60;
  auto worker = WorkerProcess::Start(options);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  auto report = (*worker)->WaitReady(Deadline::InMillis(60'000));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_NE(report->find("seccomp"), std::string::npos) << *report;
  OpenLimits limits;
  limits.name = "normal_4pages";
  limits.deadline = Deadline::InMillis(60'000);
  auto pages = (*worker)->Open(memfd->get(), pdf.size(), limits);
  ASSERT_TRUE(pages.ok()) << pages.status().ToString();
  EXPECT_EQ(*pages, 4);
  auto image = (*worker)->Render(1, 72, Deadline::InMillis(60'000));
  ASSERT_TRUE(image.ok()) << image.status().ToString();

  auto local = document::PdfDocument::Open(bytes, document::DocumentLimits{});
  ASSERT_TRUE(local.ok());
  auto expected = (*local)->RenderPage(1, 72);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(image->width, expected->width);
  EXPECT_EQ(image->height, expected->height);
  ASSERT_EQ(image->rgb().size(), expected->pixels.size());
  EXPECT_TRUE(std::equal(image->rgb().begin(), image->rgb().end(), expected->pixels.begin()));
  // A page past the end is the worker's clear error, not its end.
  auto past = (*worker)->Render(99, 72, Deadline::InMillis(60'000));
  EXPECT_FALSE(past.ok());
  EXPECT_FALSE(IsWorkerLost(past.status())) << past.status().ToString();
}

}  // namespace
}  // namespace mineru::worker
