// OCR of the scanned files of ../shared/corpus/docling, side by side with the `tesseract` command-line
// tool on the same page images in the same run:
//  - quality: normalised edit distance against the ground truth of our whole text backend (which OCRs
//    those pages) and of `tesseract IMAGE - --psm 1` (automatic layout with orientation detection, the
//    same languages and resolution) on each page render, pages joined;
//  - speed: pages/s of RecognizePage (engines already loaded, as in a running daemon) and of the CLI, one
//    process per page (it loads its models each time: that is what running it costs), on the same images;
//    and of the CLI given every page image in one list (one process, the models loaded once), as shipped
//    and with OMP_THREAD_LIMIT=1 (Tesseract's OpenMP teams spin on a machine with few cores; one thread
//    is how RecognizePage runs it).
//
// usage: document_ocr_bench [SHARED_DIR] [LANGUAGES]   (default ../shared; eng+chi_sim)
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "bench/document_corpus.h"
#include "common/clock.h"
#include "document/markdown_metrics.h"
#include "document/ocr.h"
#include "document/output_writer.h"
#include "document/text_backend.h"

namespace {

using namespace mineru;
using namespace mineru::document;

bool WritePpm(const RgbImage& image, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << "P6\n" << image.width << " " << image.height << "\n255\n";
  out.write(reinterpret_cast<const char*>(image.pixels.data()),
            static_cast<std::streamsize>(image.pixels.size()));
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  auto shared = bench::SharedDir(argc, argv);
  OcrOptions ocr;
  if (argc > 2) ocr.languages = argv[2];
  std::vector<bench::CorpusPair> scans;
  for (auto& p : bench::DoclingCorpus(shared, true)) {
    if (p.scanned) scans.push_back(p);
  }
  if (scans.empty()) {
    std::fprintf(stderr, "no scanned files under %s/corpus/docling\n", shared.c_str());
    return 1;
  }
  char tmpl[] = "/tmp/mineru-ocr-XXXXXX";
  const char* tmp = mkdtemp(tmpl);
  if (tmp == nullptr) return 1;
  std::string ppm = std::string(tmp) + "/page.ppm";
  std::string list_path = std::string(tmp) + "/pages.txt";
  std::ofstream list(list_path);
  std::vector<std::string> kept;
  std::string dpi = std::to_string(static_cast<int>(ocr.dpi));

  // Load the engines once, as a worker that has OCR'd a page before has them.
  RgbImage blank{64, 64, std::vector<uint8_t>(64 * 64 * 3, 255)};
  (void)RecognizePage(blank, ocr);

  std::printf(
      "languages %s, %s DPI\n\n| file | pages | NED ours | NED tesseract CLI | ours s/page (OCR only) | "
      "CLI s/page |\n|---|---|---|---|---|---|\n",
      ocr.languages.c_str(), dpi.c_str());
  double ned_sum[2] = {0, 0}, ours_s = 0, cli_s = 0;
  long pages = 0;
  for (const auto& p : scans) {
    std::vector<uint8_t> bytes = bench::ReadBytes(p.pdf);
    std::string ref = StripMarkdown(bench::ReadText(p.truth));
    TextBackendOptions options;
    options.crop_images = false;
    options.ocr = ocr;
    auto parsed = ParseWithTextLayer(bytes, {}, options);
    std::string ours = parsed.ok() ? WriteMarkdown(*parsed) : "";
    auto doc = PdfDocument::Open(bytes, {});
    if (!doc.ok()) continue;
    std::string cli_text;
    double file_ours = 0, file_cli = 0;
    int n = (*doc)->page_count();
    for (int i = 0; i < n; ++i) {
      auto render = (*doc)->RenderPage(i, ocr.dpi);
      if (!render.ok() || !WritePpm(*render, ppm)) continue;
      kept.push_back(std::string(tmp) + "/kept" + std::to_string(kept.size()) + ".ppm");
      if (WritePpm(*render, kept.back())) list << kept.back() << "\n";
      Stopwatch w;
      auto page = RecognizePage(*render, ocr);
      file_ours += w.ElapsedSeconds();
      if (!page.ok()) std::fprintf(stderr, "%s: %s\n", p.pdf.c_str(), page.status().ToString().c_str());
      Stopwatch c;
      cli_text += bench::RunCapture("tesseract " + bench::ShellQuote(ppm) + " - --psm 1 --dpi " + dpi +
                                    " -l " + bench::ShellQuote(ocr.languages) + " 2>/dev/null") +
                  "\n";
      file_cli += c.ElapsedSeconds();
    }
    double ned[2] = {NormalizedEditDistance(StripMarkdown(ours), ref),
                     NormalizedEditDistance(StripMarkdown(cli_text), ref)};
    ned_sum[0] += ned[0];
    ned_sum[1] += ned[1];
    ours_s += file_ours;
    cli_s += file_cli;
    pages += n;
    std::printf("| %s | %d | %.3f | %.3f | %.2f | %.2f |\n", p.pdf.filename().c_str(), n, ned[0], ned[1],
                file_ours / n, file_cli / n);
  }
  list.close();
  auto time_list = [&](const std::string& env) {
    Stopwatch batch;
    bench::RunCapture(env + "tesseract " + bench::ShellQuote(list_path) + " - --psm 1 --dpi " + dpi + " -l " +
                      bench::ShellQuote(ocr.languages) + " >/dev/null 2>&1");
    return batch.ElapsedSeconds();
  };
  const double batch_s = time_list("");
  const double single_s = time_list("OMP_THREAD_LIMIT=1 ");
  for (const std::string& k : kept) std::remove(k.c_str());
  std::remove(list_path.c_str());
  std::remove(ppm.c_str());
  rmdir(tmp);
  double files = static_cast<double>(scans.size());
  const double per_page = static_cast<double>(kept.size());
  std::printf(
      "\n| total (%zu files, %ld pages) | ours | tesseract CLI per page | tesseract CLI, one list | "
      "one list, OMP_THREAD_LIMIT=1 |\n|---|---|---|---|---|\n",
      scans.size(), pages);
  std::printf("| mean NED | %.3f | %.3f | - | - |\n", ned_sum[0] / files, ned_sum[1] / files);
  std::printf("| pages/s | %.2f | %.2f | %.2f | %.2f |\n", pages / ours_s, pages / cli_s, per_page / batch_s,
              per_page / single_s);
  const double ours_per_page = ours_s / static_cast<double>(pages);
  std::printf("| our pages/s over the peer's | - | %.2fx | %.2fx | %.2fx |\n", cli_s / ours_s,
              batch_s / per_page / ours_per_page, single_s / per_page / ours_per_page);
  return 0;
}
