// Quality of the text-layer backend on ../shared/corpus/docling against its ground-truth Markdown, side
// by side with pdftotext (poppler-utils) and `mutool convert -F text` on the same files in the same run.
// Per file and in total: normalised edit distance of the plain text (Markdown syntax stripped), heading
// precision / recall (ours; the peers write no headings), and table cells (ours: cell texts recovered as
// table cells; all three: reference cell texts found anywhere in the text), and the table structure by the
// ICDAR 2013 adjacency-relation measure (ours; document/table_score.h); then that measure on the report
// tables of known structure in tests/document/tables (pdfLaTeX and word-processor pages), and the edit
// distance of all three, our tables, our display equations and our inline formulas (LaTeX matched whole,
// whitespace aside; the peers write none) on the papers of known text in tests/document/papers.
//
// usage: document_quality_bench [SHARED_DIR]   (default ../shared or $MINERU_SHARED_DIR)
//        document_quality_bench --tables DIR...   (that measure page by page on sets of one's own:
//                                                  tNN.pdf with tNN_ref.md, as make_tables.py writes)
//        document_quality_bench --papers DIR...   (the papers' measures on sets of one's own, as
//                                                  make_papers.py writes them)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "bench/document_corpus.h"
#include "document/markdown_metrics.h"
#include "document/output_writer.h"
#include "document/table_score.h"
#include "document/text_backend.h"

namespace {

using namespace mineru;
using namespace mineru::document;

// Fraction of the reference's table cells whose text appears in `text` (normalised); -1 without tables.
double CellTextFound(const std::string& text, const std::string& truth) {
  std::vector<std::string> cells = ExtractTableCells(truth);
  if (cells.empty()) return -1;
  std::string hay = " " + NormalizeForMatch(StripMarkdown(text)) + " ";
  int found = 0, counted = 0;
  for (const std::string& c : cells) {
    if (c.empty()) continue;
    ++counted;
    if (hay.find(" " + c + " ") != std::string::npos) ++found;
  }
  return counted == 0 ? -1 : static_cast<double>(found) / counted;
}

// The adjacency relations of our tables on every page of a set of report tables of known structure
// (tNN.pdf with tNN_ref.md in `root`), and the number of pages; each file's own when `per_file`.
std::pair<AdjacencyScore, int> ScoreTableSet(const std::filesystem::path& root, bool per_file = false) {
  AdjacencyScore total;
  int pages = 0;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
    if (e.path().extension() == ".pdf") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& pdf : files) {
    std::filesystem::path ref = pdf;
    ref.replace_filename(pdf.stem().string() + "_ref.md");
    TextBackendOptions options;
    options.crop_images = false;
    auto parsed = ParseWithTextLayer(bench::ReadBytes(pdf), {}, options);
    if (!parsed.ok()) continue;
    const AdjacencyScore s = ScoreTableAdjacency(WriteMarkdown(*parsed), bench::ReadText(ref));
    if (per_file) {
      std::printf("| %s | %d/%d / %d/%d | %.3f |\n", pdf.filename().c_str(), s.matched, s.predicted,
                  s.matched, s.reference, s.f1());
    }
    total.matched += s.matched;
    total.predicted += s.predicted;
    total.reference += s.reference;
    pages += parsed->num_pages;
  }
  return {total, pages};
}

// Our Markdown of `pdf` and the text pdftotext and mutool write for it; `tmp` is a
// folder for mutool's output file.
struct Texts {
  std::string ours, poppler, mutool;
  int pages = 0;
};

Texts ReadWithEach(const std::filesystem::path& pdf, const char* tmp) {
  Texts t;
  TextBackendOptions options;
  options.crop_images = false;
  auto parsed = ParseWithTextLayer(bench::ReadBytes(pdf), {}, options);
  if (parsed.ok()) {
    t.ours = WriteMarkdown(*parsed);
    t.pages = parsed->num_pages;
  }
  const std::string q = bench::ShellQuote(pdf.string());
  t.poppler = bench::RunCapture("pdftotext -enc UTF-8 " + q + " - 2>/dev/null");
  const std::string out_txt = std::string(tmp) + "/mutool.txt";
  std::remove(out_txt.c_str());
  bench::RunCapture("mutool convert -F text -o " + bench::ShellQuote(out_txt) + " " + q + " 2>/dev/null");
  t.mutool = bench::ReadText(out_txt);
  return t;
}

// Papers of known text (pNN.pdf with pNN_ref.md in `root`, as tests/document/papers/make_papers.py
// writes): the mean NED of ours, pdftotext's and mutool's text, and our tables' adjacency relations.
void ScorePaperSet(const std::filesystem::path& root, const char* tmp) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
    if (e.path().extension() == ".pdf") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  double ned_sum[3] = {0, 0, 0};
  AdjacencyScore tables;
  EquationScore equations, inline_formulas;
  for (const std::filesystem::path& pdf : files) {
    std::filesystem::path ref = pdf;
    ref.replace_filename(pdf.stem().string() + "_ref.md");
    const std::string truth = bench::ReadText(ref);
    const Texts t = ReadWithEach(pdf, tmp);
    const std::string plain = StripMarkdown(truth);
    ned_sum[0] += NormalizedEditDistance(StripMarkdown(t.ours), plain);
    ned_sum[1] += NormalizedEditDistance(StripMarkdown(t.poppler), plain);
    ned_sum[2] += NormalizedEditDistance(StripMarkdown(t.mutool), plain);
    const AdjacencyScore s = ScoreTableAdjacency(t.ours, truth);
    tables.matched += s.matched;
    tables.predicted += s.predicted;
    tables.reference += s.reference;
    equations += ScoreDisplayEquations(t.ours, truth);
    inline_formulas += ScoreInlineFormulas(t.ours, truth);
  }
  const double n = std::max<double>(1, static_cast<double>(files.size()));
  const std::string style = root.filename().string();
  std::printf("| papers of known text, %s (%zu files): mean NED | %.3f | %.3f | %.3f |\n", style.c_str(),
              files.size(), ned_sum[0] / n, ned_sum[1] / n, ned_sum[2] / n);
  std::printf("| papers of known text, %s: table adjacency P / R / F1 | %.3f / %.3f / %.3f | - | - |\n",
              style.c_str(), tables.precision(), tables.recall(), tables.f1());
  if (equations.reference > 0) {
    std::printf(
        "| papers of known text, %s: display equations matched / given / in the reference | %d / %d / %d "
        "| - | - |\n",
        style.c_str(), equations.matched, equations.predicted, equations.reference);
  }
  if (inline_formulas.reference > 0) {
    std::printf(
        "| papers of known text, %s: inline formulas matched / given / in the reference | %d / %d / %d "
        "| - | - |\n",
        style.c_str(), inline_formulas.matched, inline_formulas.predicted, inline_formulas.reference);
  }
}

std::string Cell(double v) {
  char buf[16];
  if (v < 0) return "  -  ";
  std::snprintf(buf, sizeof(buf), "%.3f", v);
  return buf;
}

// --tables DIR...: each set's pages and its total.
int ScoreOwnSets(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    std::printf("%s\n\n| page | adjacency P / R | F1 |\n|---|---|---|\n", argv[i]);
    const auto [score, pages] = ScoreTableSet(argv[i], true);
    std::printf("| total (%d pages) | %.3f / %.3f | %.3f |\n\n", pages, score.precision(), score.recall(),
                score.f1());
  }
  return 0;
}

// --papers DIR...: each set's measures.
int ScoreOwnPapers(int argc, char** argv) {
  char tmpl[] = "/tmp/mineru-quality-XXXXXX";
  const char* tmp = mkdtemp(tmpl);
  if (tmp == nullptr) return 1;
  for (int i = 2; i < argc; ++i) ScorePaperSet(argv[i], tmp);
  std::remove((std::string(tmp) + "/mutool.txt").c_str());
  rmdir(tmp);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--tables") return ScoreOwnSets(argc, argv);
  if (argc > 1 && std::string(argv[1]) == "--papers") return ScoreOwnPapers(argc, argv);
  auto shared = bench::SharedDir(argc, argv);
  auto pairs = bench::DoclingCorpus(shared, true);
  if (pairs.empty()) {
    std::fprintf(stderr, "no docling corpus under %s/corpus/docling\n", shared.c_str());
    return 1;
  }
  char tmpl[] = "/tmp/mineru-quality-XXXXXX";
  const char* tmp = mkdtemp(tmpl);
  if (tmp == nullptr) return 1;

  std::printf(
      "| file | pages | NED ours | NED pdftotext | NED mutool | headings P / R (ours) | table cells ours | "
      "cell text ours / pdftotext / mutool | table adjacency P / R (ours) "
      "|\n|---|---|---|---|---|---|---|---|---|\n");
  double ned_sum[3] = {0, 0, 0};
  double born_ned[3] = {0, 0, 0};
  int born = 0;
  int matched = 0, predicted = 0, reference = 0;
  double cells_sum = 0, text_cells_sum[3] = {0, 0, 0};
  int table_files = 0;
  AdjacencyScore adjacency;  // summed over the files with tables in the ground truth
  for (const auto& p : pairs) {
    std::string truth = bench::ReadText(p.truth);
    const Texts texts = ReadWithEach(p.pdf, tmp);
    const std::string& ours = texts.ours;
    const std::string& poppler = texts.poppler;
    const std::string& mutool = texts.mutool;

    std::string ref = StripMarkdown(truth);
    double ned[3] = {NormalizedEditDistance(StripMarkdown(ours), ref),
                     NormalizedEditDistance(StripMarkdown(poppler), ref),
                     NormalizedEditDistance(StripMarkdown(mutool), ref)};
    for (int k = 0; k < 3; ++k) ned_sum[k] += ned[k];
    HeadingScore h = ScoreHeadings(ours, truth);
    if (!p.scanned) {
      matched += h.matched;
      predicted += h.predicted;
      reference += h.reference;
      for (int k = 0; k < 3; ++k) born_ned[k] += ned[k];
      ++born;
    }
    double cells = TableCellAccuracy(ours, truth);
    double text_cells[3] = {CellTextFound(ours, truth), CellTextFound(poppler, truth),
                            CellTextFound(mutool, truth)};
    AdjacencyScore adj = ScoreTableAdjacency(ours, truth);
    if (cells >= 0) {
      adjacency.matched += adj.matched;
      adjacency.predicted += adj.predicted;
      adjacency.reference += adj.reference;
      ++table_files;
      cells_sum += cells;
      for (int k = 0; k < 3; ++k) text_cells_sum[k] += text_cells[k];
    }
    char hp[64];
    std::snprintf(hp, sizeof(hp), "%d/%d / %d/%d", h.matched, h.predicted, h.matched, h.reference);
    char ap[64] = "-";
    if (cells >= 0)
      std::snprintf(ap, sizeof(ap), "%d/%d / %d/%d", adj.matched, adj.predicted, adj.matched, adj.reference);
    std::printf("| %s%s | %d | %s | %s | %s | %s | %s | %s / %s / %s | %s |\n", p.pdf.filename().c_str(),
                p.scanned ? " (scan)" : "", texts.pages, Cell(ned[0]).c_str(), Cell(ned[1]).c_str(),
                Cell(ned[2]).c_str(), hp, Cell(cells).c_str(), Cell(text_cells[0]).c_str(),
                Cell(text_cells[1]).c_str(), Cell(text_cells[2]).c_str(), ap);
  }
  double n = static_cast<double>(pairs.size());
  HeadingScore total{matched, predicted, reference};
  std::printf("\n| total (%zu files) | ours | pdftotext | mutool |\n|---|---|---|---|\n", pairs.size());
  std::printf("| mean NED, all files | %.3f | %.3f | %.3f |\n", ned_sum[0] / n, ned_sum[1] / n,
              ned_sum[2] / n);
  std::printf("| mean NED, born-digital (%d) | %.3f | %.3f | %.3f |\n", born, born_ned[0] / born,
              born_ned[1] / born, born_ned[2] / born);
  int scans = static_cast<int>(pairs.size()) - born;
  if (scans > 0) {
    std::printf("| mean NED, scanned (%d; ours by OCR) | %.3f | %.3f | %.3f |\n", scans,
                (ned_sum[0] - born_ned[0]) / scans, (ned_sum[1] - born_ned[1]) / scans,
                (ned_sum[2] - born_ned[2]) / scans);
  }
  std::printf("| ratio of mean NED to ours | 1.00 | %.2f | %.2f |\n", ned_sum[1] / ned_sum[0],
              ned_sum[2] / ned_sum[0]);
  std::printf("| headings on born-digital: P / R / F1 | %.3f / %.3f / %.3f | - | - |\n", total.precision(),
              total.recall(), total.f1());
  if (table_files > 0) {
    std::printf("| table cells as cells (%d files with tables) | %.3f | - | - |\n", table_files,
                cells_sum / table_files);
    std::printf("| table cell texts found in the text | %.3f | %.3f | %.3f |\n",
                text_cells_sum[0] / table_files, text_cells_sum[1] / table_files,
                text_cells_sum[2] / table_files);
    std::printf("| table adjacency relations P / R / F1 (ICDAR 2013) | %.3f / %.3f / %.3f | - | - |\n",
                adjacency.precision(), adjacency.recall(), adjacency.f1());
  }
  for (const char* set : {"latex", "wordproc", "text", "offices"}) {
    const auto [score, pages] = ScoreTableSet(std::filesystem::path(MINERU_TABLES_DIR) / set);
    std::printf(
        "| report tables of known structure, %s (%d pages): adjacency P / R / F1 | %.3f / %.3f / %.3f "
        "| - | - |\n",
        set, pages, score.precision(), score.recall(), score.f1());
  }
  for (const char* style : {"article", "ieee", "llncs", "math"}) {
    ScorePaperSet(std::filesystem::path(MINERU_PAPERS_DIR) / style, tmp);
  }
  std::remove((std::string(tmp) + "/mutool.txt").c_str());
  rmdir(tmp);
  return 0;
}
