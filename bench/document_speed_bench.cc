// Speed of the document library on ../shared/corpus/docling, side by side in one run:
//  - text backend: pages/s for full output (parse with image crops + NAME.md + content_list + middle.json)
//    against `pdftotext` on the same files (target: at least 0.5x), OCR off (document_ocr_bench has it);
//  - rendering at 200 DPI (what the VLM backend feeds the model): page renders/s with one thread and with
//    RenderPages on 2 threads, against `mutool draw -r 200` (target: at least 0.9x).
// Peers run as processes, one per file, so their times include process start (a few ms per file).
//
// usage: document_speed_bench [SHARED_DIR] [ROUNDS]
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "bench/document_corpus.h"
#include "common/clock.h"
#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"

namespace {

using namespace mineru;
using namespace mineru::document;

struct Timed {
  double seconds = 0;
  long pages = 0;
  double rate() const { return seconds > 0 ? static_cast<double>(pages) / seconds : 0; }
};

}  // namespace

int main(int argc, char** argv) {
  auto shared = bench::SharedDir(argc, argv);
  int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  std::vector<std::filesystem::path> files;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<int> page_counts;
  for (const auto& p : bench::DoclingCorpus(shared, false)) {
    std::vector<uint8_t> b = bench::ReadBytes(p.pdf);
    auto doc = PdfDocument::Open(b, {});
    if (!doc.ok()) continue;  // the encrypted file
    page_counts.push_back((*doc)->page_count());
    files.push_back(p.pdf);
    bytes.push_back(std::move(b));
  }
  if (files.empty()) {
    std::fprintf(stderr, "no docling corpus under %s/corpus/docling\n", shared.c_str());
    return 1;
  }
  long total_pages = std::accumulate(page_counts.begin(), page_counts.end(), 0L);
  std::printf("%zu files, %ld pages, best of %d rounds\n\n", files.size(), total_pages, rounds);

  Timed ours_text, poppler, ours_render, ours_render2, mutool;
  ours_text.seconds = ours_render.seconds = ours_render2.seconds = poppler.seconds = mutool.seconds = 1e30;
  for (int r = 0; r < rounds; ++r) {
    Stopwatch w;
    long pages = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      auto doc = PdfDocument::Open(bytes[i], {});
      if (!doc.ok()) continue;
      // The text layer against pdftotext, which reads no pixels: scanned pages stay "needs OCR" here;
      // document_ocr_bench measures OCR against the tesseract CLI.
      TextBackendOptions options;
      options.ocr.enabled = false;
      auto parsed = ParseWithTextLayer(**doc, options);
      if (!parsed.ok()) continue;
      OutputOptions o;
      o.layout_pdf = false;
      auto out = WriteOutputs(*parsed, "x", nullptr, o);
      if (out.ok()) pages += parsed->num_pages;
    }
    ours_text.seconds = std::min(ours_text.seconds, w.ElapsedSeconds());
    ours_text.pages = pages;

    w.Restart();
    for (const auto& f : files)
      bench::RunCapture("pdftotext -enc UTF-8 " + bench::ShellQuote(f.string()) + " - >/dev/null 2>&1");
    poppler.seconds = std::min(poppler.seconds, w.ElapsedSeconds());
    poppler.pages = total_pages;

    w.Restart();
    pages = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      auto doc = PdfDocument::Open(bytes[i], {});
      for (int p = 0; doc.ok() && p < page_counts[i]; ++p) pages += (*doc)->RenderPage(p, 200).ok();
    }
    ours_render.seconds = std::min(ours_render.seconds, w.ElapsedSeconds());
    ours_render.pages = pages;

    w.Restart();
    pages = 0;
    for (size_t i = 0; i < files.size(); ++i) {
      auto doc = PdfDocument::Open(bytes[i], {});
      if (!doc.ok()) continue;
      std::vector<int> all(static_cast<size_t>(page_counts[i]));
      std::iota(all.begin(), all.end(), 0);
      for (auto& img : (*doc)->RenderPages(all, 200, 2)) pages += img.ok();
    }
    ours_render2.seconds = std::min(ours_render2.seconds, w.ElapsedSeconds());
    ours_render2.pages = pages;

    w.Restart();
    for (const auto& f : files) {
      bench::RunCapture("mutool draw -q -r 200 -F pnm -o /dev/null " + bench::ShellQuote(f.string()) +
                        " >/dev/null 2>&1");
    }
    mutool.seconds = std::min(mutool.seconds, w.ElapsedSeconds());
    mutool.pages = total_pages;
  }
  std::printf("| measure | ours | peer | ours / peer |\n|---|---|---|---|\n");
  std::printf("| text to Markdown + JSON, pages/s (peer: pdftotext) | %.1f | %.1f | %.2fx |\n",
              ours_text.rate(), poppler.rate(), ours_text.rate() / poppler.rate());
  std::printf("| 200-DPI renders/s, 1 thread (peer: mutool draw) | %.1f | %.1f | %.2fx |\n",
              ours_render.rate(), mutool.rate(), ours_render.rate() / mutool.rate());
  std::printf("| 200-DPI renders/s, RenderPages on 2 threads (peer: mutool draw) | %.1f | %.1f | %.2fx |\n",
              ours_render2.rate(), mutool.rate(), ours_render2.rate() / mutool.rate());
  return 0;
}
