// Tokenizer encoding throughput on one core, side by side with two baselines measured in the same
// run on the same text: a raw UTF-8 validation scan (the floor any tokenizer pays) and the
// JavaScript reference tokenizer (npm @lenml/tokenizers, run with node when installed).
//
//   tokenizer_bench [--vocab tokenizer.json] [--text FILE_OR_DIR] [--seconds S] [--js-dir DIR]
//
// Defaults: the Qwen vocabulary fetched by scripts/install-deps, the Markdown ground truth in
// ../shared/corpus/docling/groundtruth (run from the source root), 2 s per measurement. Rates are
// bytes per second of CPU time of the encoding thread (node: of its process), so a busy machine
// does not distort the ratios.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/pretokenizer.h"
#include "engine/tokenizer.h"
#include "engine/tokenizer_json.h"
#include "engine/tokenizer_utf8.h"

namespace {

namespace fs = std::filesystem;
using mineru::Stopwatch;
using mineru::engine::Tokenizer;

std::string CacheDir() {
  if (const char* c = std::getenv("MINERU_CACHE_DIR"); c != nullptr && *c != '\0') return c;
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.cache/minerud";
  return ".cache/minerud";
}

bool ReadFile(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *out = buffer.str();
  return true;
}

// All *.md files under `root` (sorted), concatenated; or the file itself.
bool LoadText(const fs::path& root, std::string* text) {
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) return ReadFile(root, text);
  if (!fs::is_directory(root, ec)) return false;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string part;
    if (!ReadFile(f, &part)) return false;
    text->append(part).append("\n");
  }
  return !text->empty();
}

struct Rate {
  double mb_per_s = 0;
  double tokens_per_s = 0;
};

// CPU time of this thread: the machine may be shared, and "one core" means the time we ran.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs `fn` (returning the tokens produced) repeatedly for at least `seconds` of CPU time.
template <typename Fn>
Rate Measure(size_t bytes, double seconds, Fn&& fn) {
  size_t rounds = 0, tokens = 0;
  const double start = ThreadCpuSeconds();
  do {
    tokens += fn();
    ++rounds;
  } while (ThreadCpuSeconds() - start < seconds);
  const double elapsed = ThreadCpuSeconds() - start;
  return {static_cast<double>(bytes * rounds) / elapsed / 1e6, static_cast<double>(tokens) / elapsed};
}

}  // namespace

int main(int argc, char** argv) {
  fs::path vocab = fs::path(CacheDir()) / "tokenizer-qwen3-3.7.2/tokenizer.json";
  if (const char* v = std::getenv("MINERU_TOKENIZER_JSON"); v != nullptr && *v != '\0') vocab = v;
  fs::path text_path = "../shared/corpus/docling/groundtruth";
  fs::path js_dir = fs::path(CacheDir()) / "js-tokenizers";
  double seconds = 2.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--vocab")
      vocab = argv[i + 1];
    else if (flag == "--text")
      text_path = argv[i + 1];
    else if (flag == "--seconds")
      seconds = std::atof(argv[i + 1]);
    else if (flag == "--js-dir")
      js_dir = argv[i + 1];
    else {
      std::cerr << "usage: tokenizer_bench [--vocab F] [--text F|DIR] [--seconds S] [--js-dir DIR]\n";
      return 2;
    }
  }
  if ((argc - 1) % 2 != 0) {
    std::cerr << "usage: tokenizer_bench [--vocab F] [--text F|DIR] [--seconds S] [--js-dir DIR]\n";
    return 2;
  }
  std::string text;
  if (!LoadText(text_path, &text)) {
    std::cerr << "tokenizer_bench: no text at " << text_path << " (pass --text)\n";
    return 1;
  }
  if (mineru::engine::FindInvalidUtf8(text) != std::string::npos) {
    std::cerr << "tokenizer_bench: the text is not valid UTF-8\n";
    return 1;
  }
  std::string vocab_text;
  if (!ReadFile(vocab, &vocab_text)) {
    std::cerr << "tokenizer_bench: cannot read " << vocab << "\n";
    return 1;
  }
  Stopwatch load_watch;
  auto loaded = Tokenizer::FromJson(vocab_text, vocab.string());
  if (!loaded.ok()) {
    std::cerr << "tokenizer_bench: " << loaded.status().ToString() << "\n";
    return 1;
  }
  const double load_s = load_watch.ElapsedSeconds();
  const Tokenizer& tok = **loaded;
  const size_t bytes = text.size();

  auto first = tok.Encode(text);
  if (!first.ok()) {
    std::cerr << "tokenizer_bench: " << first.status().ToString() << "\n";
    return 1;
  }
  // Warm: the per-word cache holds every word of the text. Cold: it is emptied before each pass.
  const Rate ours = Measure(bytes, seconds, [&] { return tok.Encode(text)->size(); });
  const Rate cold = Measure(bytes, seconds, [&] {
    tok.bpe().ClearCache();
    return tok.Encode(text)->size();
  });
  tok.bpe().ClearCache();
  // The pre-tokenizer alone (NFC is not applied here).
  auto spec = mineru::engine::ParseTokenizerJson(vocab_text);
  std::unique_ptr<mineru::engine::SplitPreTokenizer> split;
  if (spec.ok() && spec->split_pattern) {
    auto created = mineru::engine::SplitPreTokenizer::Create(*spec->split_pattern);
    if (created.ok()) split = std::move(created).value();
  }
  Rate split_rate;
  if (split) {
    split_rate = Measure(bytes, seconds, [&] {
      size_t pieces = 0;
      split->Split(text, [&](std::string_view) { ++pieces; }).IgnoreError();
      return pieces;
    });
  }
  const Rate scan = Measure(bytes, seconds, [&] {
    return mineru::engine::FindInvalidUtf8(text) == std::string::npos ? size_t{0} : size_t{1};
  });

  // The JavaScript reference on the same text.
  double js_mb_s = 0;
  const fs::path module = js_dir / "node_modules/@lenml/tokenizers";
  const fs::path script = "tests/engine/tokenizer_reference.js";
  std::error_code ec;
  if (fs::exists(module / "package.json", ec) && fs::exists(script, ec) &&
      std::system("node --version > /dev/null 2>&1") == 0) {
    const fs::path tmp =
        fs::temp_directory_path() / ("mineru-tokbench-" + std::to_string(::getpid()) + ".txt");
    std::ofstream(tmp, std::ios::binary) << text;
    const std::string cmd = "node '" + script.string() + "' bench '" + module.string() + "' '" +
                            vocab.string() + "' '" +
                            (vocab.parent_path() / "tokenizer_config.json").string() + "' '" + tmp.string() +
                            "' " + std::to_string(seconds);
    if (FILE* pipe = ::popen(cmd.c_str(), "r")) {
      char line[512] = {};
      std::string out;
      while (std::fgets(line, sizeof(line), pipe) != nullptr) out += line;
      ::pclose(pipe);
      double js_bytes = 0, js_seconds = 0;
      if (std::sscanf(out.c_str(), "{\"bytes\":%lf,\"seconds\":%lf", &js_bytes, &js_seconds) == 2 &&
          js_seconds > 0) {
        js_mb_s = js_bytes / js_seconds / 1e6;
      }
    }
    fs::remove(tmp, ec);
  }

  std::printf("tokenizer_bench: %zu bytes of text (%s), %zu tokens, %.2f bytes/token\n", bytes,
              text_path.string().c_str(), first->size(), static_cast<double>(bytes) / first->size());
  std::printf("  load tokenizer.json              %8.2f s\n", load_s);
  std::printf("  encode, warm word cache          %8.2f MB/s  %10.0f tokens/s\n", ours.mb_per_s,
              ours.tokens_per_s);
  std::printf("  encode, cache emptied each pass  %8.2f MB/s  %10.0f tokens/s\n", cold.mb_per_s,
              cold.tokens_per_s);
  std::printf("  pre-tokenizer split alone        %8.2f MB/s  %10.0f pieces/s\n", split_rate.mb_per_s,
              split_rate.tokens_per_s);
  std::printf("  baseline: UTF-8 validation scan  %8.2f MB/s   ours/scan = %.3f\n", scan.mb_per_s,
              ours.mb_per_s / scan.mb_per_s);
  if (js_mb_s > 0) {
    std::printf("  baseline: JS reference (node)    %8.2f MB/s   ours/JS   = %.2fx warm, %.2fx cold\n",
                js_mb_s, ours.mb_per_s / js_mb_s, cold.mb_per_s / js_mb_s);
  } else {
    std::printf("  baseline: JS reference           not run (node or @lenml/tokenizers missing)\n");
  }
  std::printf("  target >= 5 MB/s on one core: warm %s, cold %s\n", ours.mb_per_s >= 5.0 ? "met" : "NOT met",
              cold.mb_per_s >= 5.0 ? "met" : "NOT met");
  return 0;
}
