// The remote backend's own work per page, side by side with the render every model path pays:
// render at 200 DPI, PNG-encode the render, build MinerU's request (base64 data URL + JSON), and read
// an answer stream of the same size back (ChatStreamParser), for the pages of real PDFs. What a page
// costs on this side of the wire before and after the server's model runs.
//   remote_bench [SHARED_DIR]   (default ../shared; uses corpus/docling/pdf)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/document_corpus.h"
#include "common/clock.h"
#include "document/pdf_document.h"
#include "document/rgb_image.h"
#include "pipeline/openai_chat.h"

namespace {

using mineru::Stopwatch;

// A vLLM-style stream carrying `text` in pieces of about four bytes (a token's worth).
std::string StreamOf(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    out +=
        "data: {\"id\":\"chatcmpl-b\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
        "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
        text.substr(i, 4) + "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n";
  }
  out +=
      "data: {\"id\":\"chatcmpl-b\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
  out += "data: [DONE]\n\n";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const fs::path dir = mineru::bench::SharedDir(argc, argv) / "corpus/docling/pdf";
  std::vector<fs::path> pdfs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".pdf") pdfs.push_back(e.path());
  }
  std::sort(pdfs.begin(), pdfs.end());
  if (pdfs.size() > 8) pdfs.resize(8);
  if (pdfs.empty()) {
    std::fprintf(stderr, "remote_bench: no PDFs under %s\n", dir.c_str());
    return 1;
  }
  double render_s = 0, png_s = 0, request_s = 0, parse_s = 0;
  uint64_t raw_bytes = 0, png_bytes = 0, request_bytes = 0, stream_bytes = 0;
  int pages = 0;
  const mineru::pipeline::ChatSampling sampling = mineru::pipeline::MineruSampling(0);
  // A page's answer: about 3 KB of model text (a dense page writes a few thousand tokens).
  std::string answer;
  while (answer.size() < 3000)
    answer += "<|box_start|>100 200 900 240<|box_end|><|ref_start|>text<|ref_end|>lorem ";
  const std::string stream = StreamOf(answer);
  for (const fs::path& path : pdfs) {
    const std::vector<uint8_t> bytes = mineru::bench::ReadBytes(path);
    auto pdf = mineru::document::PdfDocument::Open(bytes, mineru::document::DocumentLimits{}, nullptr);
    if (!pdf.ok()) continue;
    for (int i = 0; i < std::min((*pdf)->page_count(), 3); ++i) {
      Stopwatch t;
      auto render = (*pdf)->RenderPage(i, 200);
      if (!render.ok()) continue;
      render_s += t.ElapsedSeconds();
      t.Restart();
      auto png = mineru::document::EncodePng(*render);
      png_s += t.ElapsedSeconds();
      if (!png.ok()) continue;
      t.Restart();
      mineru::pipeline::PageRequest r;
      r.model = "mineru2";
      r.png = *png;
      r.sampling = sampling;
      const std::string body = mineru::pipeline::BuildPageRequestBody(r);
      request_s += t.ElapsedSeconds();
      t.Restart();
      mineru::pipeline::ChatStreamParser parser(mineru::pipeline::MaxAnswerBytes(sampling.max_tokens));
      if (!parser.Feed(stream).ok() || !parser.Finish().ok() || parser.text() != answer) {
        std::fprintf(stderr, "remote_bench: the stream did not parse back\n");
        return 1;
      }
      parse_s += t.ElapsedSeconds();
      raw_bytes += render->pixels.size();
      png_bytes += png->size();
      request_bytes += body.size();
      stream_bytes += stream.size();
      ++pages;
    }
  }
  const double n = pages;
  std::printf("%d pages of %zu PDFs at 200 DPI (per page, mean)\n\n", pages, pdfs.size());
  std::printf("| step | ms/page | vs render | bytes/page |\n|---|---|---|---|\n");
  std::printf("| render (MuPDF, every model path) | %.1f | 1.00x | %.0f (RGB) |\n", 1e3 * render_s / n,
              raw_bytes / n);
  std::printf("| PNG encode | %.1f | %.2fx | %.0f |\n", 1e3 * png_s / n, png_s / render_s, png_bytes / n);
  std::printf("| request body (base64 + JSON) | %.1f | %.2fx | %.0f |\n", 1e3 * request_s / n,
              request_s / render_s, request_bytes / n);
  std::printf("| answer stream parse (~3 KB text) | %.2f | %.3fx | %.0f |\n", 1e3 * parse_s / n,
              parse_s / render_s, stream_bytes / n);
  std::printf("\nremote-path overhead (PNG + request + parse) / render: %.2fx\n",
              (png_s + request_s + parse_s) / render_s);
  return 0;
}
