// mineru-parse: parse one PDF with the text-layer backend and write MinerU's outputs to a folder.
// A developer tool for the document library (the daemon and mineructl are the real interface).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/clock.h"
#include "common/config.h"
#include "common/mapped_region.h"
#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"

namespace {

constexpr char kUsage[] =
    "usage: mineru-parse FILE.pdf -o DIR [options]\n"
    "Parses FILE.pdf with the text-layer backend (no model) and writes DIR/NAME.md,\n"
    "NAME_content_list.json, NAME_middle.json, NAME_layout.pdf and DIR/images/.\n"
    "options:\n"
    "  -o DIR            output folder (created if missing)\n"
    "  --password PW     password of an encrypted PDF\n"
    "  --max-pages N     refuse documents with more pages (default 2000)\n"
    "  --memory-mib N    MuPDF memory cap in MiB (default 1024)\n"
    "  --time-ms N       time budget in milliseconds, 0 = none (default 120000)\n"
    "  --no-layout-pdf   skip NAME_layout.pdf\n"
    "  --ocr-languages L Tesseract languages for pages without a usable text layer (default eng+chi_sim)\n"
    "  --no-ocr          report such pages as needing OCR instead of reading them\n"
    "  -q                print nothing but errors\n"
    "exit codes: 0 ok, 1 parse failed, 64 usage, 65 bad input, 74 cannot write output\n";

bool ParseInt(const char* s, int64_t* out) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < 0) return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mineru;
  using namespace mineru::document;
  std::string input, out_dir;
  DocumentLimits limits;
  bool layout = true, quiet = false;
  OcrOptions ocr;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto need = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mineru-parse: %s needs a value\n%s", what, kUsage);
        std::exit(64);
      }
      return argv[++i];
    };
    int64_t v = 0;
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (a == "-o") {
      out_dir = need("-o");
    } else if (a == "--password") {
      limits.password = need("--password");
    } else if (a == "--max-pages" && ParseInt(need("--max-pages"), &v) && v <= 1'000'000) {
      limits.max_pages = static_cast<int>(v);
    } else if (a == "--memory-mib" && ParseInt(need("--memory-mib"), &v) && v <= (1 << 20)) {
      limits.max_memory_bytes = static_cast<uint64_t>(v) << 20;
    } else if (a == "--time-ms" && ParseInt(need("--time-ms"), &v)) {
      limits.time_budget_ms = v;
    } else if (a == "--ocr-languages") {
      ocr.languages = need("--ocr-languages");
    } else if (a == "--no-ocr") {
      ocr.enabled = false;
    } else if (a == "--no-layout-pdf") {
      layout = false;
    } else if (a == "-q") {
      quiet = true;
    } else if (!a.empty() && a[0] != '-' && input.empty()) {
      input = a;
    } else {
      std::fprintf(stderr, "mineru-parse: bad argument '%s'\n%s", a.c_str(), kUsage);
      return 64;
    }
  }
  if (input.empty() || out_dir.empty()) {
    std::fputs(kUsage, stderr);
    return 64;
  }
  if (Status s = CheckOcrLanguages(ocr.languages); !s.ok()) {
    std::fprintf(stderr, "mineru-parse: %s\n", s.ToString().c_str());
    return 64;
  }
  if (Status s = ValidateLimits(limits); !s.ok()) {
    std::fprintf(stderr, "mineru-parse: %s\n", s.ToString().c_str());
    return 64;
  }
  auto mapped = MappedRegion::MapFile(input.c_str());
  if (!mapped.ok()) {
    std::fprintf(stderr, "mineru-parse: %s\n", mapped.status().ToString().c_str());
    return 65;
  }
  Stopwatch watch;
  auto doc = PdfDocument::Open(mapped->bytes(), limits);
  if (!doc.ok()) {
    std::fprintf(stderr, "mineru-parse: %s: %s\n", input.c_str(), doc.status().ToString().c_str());
    return 65;
  }
  TextBackendOptions options;
  options.ocr = ocr;
  options.on_page = [&](const PageProgress& p) {
    if (!quiet) std::fprintf(stderr, "\rpage %d/%d", p.page_index + 1, p.num_pages);
    return true;
  };
  auto parsed = ParseWithTextLayer(**doc, options);
  if (!quiet) std::fputc('\n', stderr);
  if (!parsed.ok()) {
    std::fprintf(stderr, "mineru-parse: %s: %s\n", input.c_str(), parsed.status().ToString().c_str());
    return 1;
  }
  std::string name = std::filesystem::path(input).stem().string();
  OutputOptions out_options;
  out_options.layout_pdf = layout;
  auto files = WriteOutputs(*parsed, name, doc->get(), out_options);
  if (!files.ok()) {
    std::fprintf(stderr, "mineru-parse: %s\n", files.status().ToString().c_str());
    return 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(out_dir) / "images", ec);
  for (const OutputFile& f : files->files) {
    std::filesystem::path path = std::filesystem::path(out_dir) / f.relative_path;
    std::ofstream os(path, std::ios::binary);
    os.write(reinterpret_cast<const char*>(f.bytes.data()), static_cast<std::streamsize>(f.bytes.size()));
    if (!os) {
      std::fprintf(stderr, "mineru-parse: cannot write %s\n", path.c_str());
      return 74;
    }
  }
  if (!quiet) {
    int needs_ocr = 0, failed = 0;
    for (const PageResult& p : parsed->pages) {
      needs_ocr += p.status == PageStatus::kNeedsOcr;
      failed += p.status == PageStatus::kFailed;
    }
    std::fprintf(
        stderr,
        "%s: %d pages in %.2f s (%d need OCR or a model, %d failed), peak MuPDF memory %.1f MiB -> %s\n",
        input.c_str(), parsed->num_pages, watch.ElapsedSeconds(), needs_ocr, failed,
        static_cast<double>((*doc)->peak_memory_bytes()) / (1 << 20), out_dir.c_str());
  }
  return 0;
}
