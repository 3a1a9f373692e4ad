// Shared by the document benchmarks: the docling corpus pairs, running a peer tool, reading files.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mineru::bench {

struct CorpusPair {
  std::filesystem::path pdf;
  std::filesystem::path truth;  // empty when the PDF has no ground truth
  bool scanned = false;         // ground truth from OCR of a scan
};

// ../shared (or $MINERU_SHARED_DIR, or argv[1] when given).
inline std::filesystem::path SharedDir(int argc, char** argv) {
  if (argc > 1) return argv[1];
  if (const char* env = std::getenv("MINERU_SHARED_DIR")) return env;
  return "../shared";
}

// Every PDF under corpus/docling/pdf with its ground truth when there is one.
inline std::vector<CorpusPair> DoclingCorpus(const std::filesystem::path& shared, bool with_truth_only) {
  std::filesystem::path root = shared / "corpus/docling";
  std::vector<CorpusPair> pairs;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root / "groundtruth", ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".md") continue;
    std::string stem = e.path().stem().string();
    std::filesystem::path pdf = root / "pdf" / (stem + ".pdf");
    if (!std::filesystem::exists(pdf)) pdf = root / "pdf" / (stem.substr(0, stem.find('.')) + ".pdf");
    if (!std::filesystem::exists(pdf)) continue;
    pairs.push_back({pdf, e.path(), e.path().parent_path().filename() == "ocr"});
  }
  if (!with_truth_only) {
    for (const auto& e : std::filesystem::directory_iterator(root / "pdf", ec)) {
      bool known =
          std::any_of(pairs.begin(), pairs.end(), [&](const CorpusPair& p) { return p.pdf == e.path(); });
      if (!known && e.path().extension() == ".pdf") pairs.push_back({e.path(), {}, false});
    }
  }
  std::sort(pairs.begin(), pairs.end(),
            [](const CorpusPair& a, const CorpusPair& b) { return a.pdf < b.pdf; });
  return pairs;
}

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Single-quotes a path for /bin/sh.
inline std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

// Runs a shell command and returns its stdout ("" when it failed to start).
inline std::string RunCapture(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

}  // namespace mineru::bench
