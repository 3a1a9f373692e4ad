// TextLayerBackend: the default Backend when no model is configured. Parses born-digital PDFs from
// MuPDF's text layer (document/text_backend.h) under the job's limits and writes MinerU's output files
// in memory (document/output_writer.h).
#pragma once

#include "pipeline/backend.h"

namespace mineru::pipeline {

class TextLayerBackend : public Backend {
 public:
  std::string_view name() const override { return "text"; }
  Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                              const CancelFlag& cancel) override;
};

}  // namespace mineru::pipeline
