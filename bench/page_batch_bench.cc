// page_batch_bench: what batching pages across clients buys, through the real model backend.
//
// One run, two ModelBackend instances over the same model folder, differing only in max_batch (1, then
// the given N). K client threads each parse the same PDF at once (as K local apps would through
// minerud); the bench prints pages/s for each and the ratio, and checks that every page's model text
// is identical in both (batching changes the schedule, never the tokens).
//
//   page_batch_bench [--shared DIR] [--clients K] [--batch N] [--tokens T] [--pdf FILE]
//
// The model folder is the golden tiny checkpoint (../shared/golden/vlm-untied-f32) with the test
// tokenizer beside it: random weights, so it always writes T tokens per page and the figure measures
// the engine's per-step overheads that batching amortises, not the real model's arithmetic.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/config.h"
#include "pipeline/model_backend.h"
#include "tests/integration/tiny_vlm_model.h"

namespace {

namespace fs = std::filesystem;
using mineru::pipeline::BackendInput;
using mineru::pipeline::BackendOutput;
using mineru::pipeline::CancelFlag;
using mineru::pipeline::ModelBackend;
using mineru::pipeline::PageOutput;

std::vector<uint8_t> ReadBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct RunResult {
  double seconds = 0;
  int64_t pages = 0;
  std::vector<std::string> texts;  // NAME_model_output.txt of each client
  double largest_batch = 0;
};

RunResult Run(const fs::path& model, int64_t max_batch, int64_t tokens, int clients,
              const std::vector<uint8_t>& pdf) {
  mineru::Config config;
  config.model_dir = model.string();
  config.max_batch = max_batch;
  config.max_new_tokens = tokens;
  auto backend = ModelBackend::Load(config);
  if (!backend.ok()) {
    std::fprintf(stderr, "page_batch_bench: %s\n", backend.status().ToString().c_str());
    std::exit(1);
  }
  RunResult r;
  r.texts.resize(static_cast<size_t>(clients));
  std::vector<int64_t> pages(static_cast<size_t>(clients), 0);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      BackendInput input;
      input.document = pdf;
      input.name = "doc";
      CancelFlag cancel{false};
      auto out = (*backend)->Parse(
          input, [](int64_t, int64_t, std::shared_ptr<const PageOutput>) {}, cancel);
      if (!out.ok()) {
        std::fprintf(stderr, "page_batch_bench: %s\n", out.status().ToString().c_str());
        std::exit(1);
      }
      pages[static_cast<size_t>(c)] = out->num_pages;
      for (const auto& f : out->files) {
        if (f.path == "doc_model_output.txt") r.texts[static_cast<size_t>(c)] = f.data;
      }
    });
  }
  for (auto& t : threads) t.join();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int64_t p : pages) r.pages += p;
  r.largest_batch = (*backend)->Stats().counters["vlm_largest_batch"];
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path shared = "../shared";
  int clients = 4;
  int64_t batch = 8, tokens = 64;
  fs::path pdf_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--shared")
      shared = v;
    else if (a == "--clients")
      clients = std::atoi(v.c_str());
    else if (a == "--batch")
      batch = std::atoll(v.c_str());
    else if (a == "--tokens")
      tokens = std::atoll(v.c_str());
    else if (a == "--pdf")
      pdf_path = v;
  }
  if (pdf_path.empty()) pdf_path = shared / "corpus/docling/pdf/normal_4pages.pdf";
  const fs::path model = fs::temp_directory_path() / ("page_batch_bench." + std::to_string(::getpid()));
  const std::string made = mineru::testing::MakeTinyVlmModel(shared / "golden/vlm-untied-f32", model);
  if (!made.empty()) {
    std::fprintf(stderr, "page_batch_bench: %s\n", made.c_str());
    return 1;
  }
  const std::vector<uint8_t> pdf = ReadBytes(pdf_path);
  const RunResult one = Run(model, 1, tokens, clients, pdf);
  const RunResult many = Run(model, batch, tokens, clients, pdf);
  fs::remove_all(model);
  bool same = one.texts == many.texts;
  for (const std::string& t : one.texts) same = same && t == one.texts.front() && !t.empty();
  std::printf("%d clients x %s, %lld tokens per page, golden tiny checkpoint (random weights)\n", clients,
              pdf_path.filename().c_str(), static_cast<long long>(tokens));
  std::printf("| max_batch | largest batch | pages | seconds | pages/s |\n|---|---|---|---|---|\n");
  std::printf("| 1 | %.0f | %lld | %.2f | %.2f |\n", one.largest_batch, static_cast<long long>(one.pages),
              one.seconds, one.pages / one.seconds);
  std::printf("| %lld | %.0f | %lld | %.2f | %.2f |\n", static_cast<long long>(batch), many.largest_batch,
              static_cast<long long>(many.pages), many.seconds, many.pages / many.seconds);
  std::printf("batched / one at a time: %.2fx pages/s; model text identical in both: %s\n",
              (many.pages / many.seconds) / (one.pages / one.seconds), same ? "yes" : "NO");
  return same ? 0 : 1;
}
