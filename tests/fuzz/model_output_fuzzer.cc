// libFuzzer target: the MinerU model-output parser (document/model_output_parser) and the writers on
// whatever it recovers. Any model text must give blocks and warnings, never a crash; every recovered box
// is inside the 0-1000 frame.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "document/model_output_parser.h"
#include "document/output_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mineru::document;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParsedModelOutput out = ParseModelOutput(text);
  for (const Block& b : out.blocks) {
    if (b.bbox.x0 < 0 || b.bbox.x1 > 1000 || b.bbox.x0 > b.bbox.x1 || b.bbox.y0 > b.bbox.y1) __builtin_trap();
    if (b.parent >= static_cast<int>(out.blocks.size())) __builtin_trap();
  }
  ParsedDocument doc;
  doc.backend = "vlm";
  doc.num_pages = 1;
  PageResult page;
  page.width_pt = 612;
  page.height_pt = 792;
  page.blocks = std::move(out.blocks);
  page.model_output = std::string(text);
  doc.pages.push_back(std::move(page));
  (void)WriteMarkdown(doc);
  (void)WriteContentList(doc);
  (void)WriteMiddleJson(doc);
  (void)WriteModelOutput(doc);
  return 0;
}
