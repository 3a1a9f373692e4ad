// libFuzzer target: an untrusted PDF through PdfDocument (MuPDF under limits), the text-layer backend and
// the writers (layout PDF included). Any bytes must give outputs or a Status, never a crash; MuPDF's
// memory stays under the cap.
#include <cstddef>
#include <cstdint>
#include <span>

#include "document/output_writer.h"
#include "document/pdf_document.h"
#include "document/text_backend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mineru::document;
  DocumentLimits limits;
  limits.max_memory_bytes = 128ull << 20;
  limits.time_budget_ms = 3000;
  limits.max_pages = 20;
  limits.max_pixels_per_page = 4'000'000;
  auto doc = PdfDocument::Open(std::span<const uint8_t>(data, size), limits);
  if (!doc.ok()) return 0;
  TextBackendOptions options;
  options.crop_dpi = 72;
  auto parsed = ParseWithTextLayer(**doc, options);
  if (parsed.ok()) (void)WriteOutputs(*parsed, "fuzz", doc->get());
  if ((*doc)->peak_memory_bytes() > limits.max_memory_bytes) __builtin_trap();
  return 0;
}
