// ModelBackend: MinerU 2.0 on the engine, the backend when a model folder is configured. The model is
// loaded once and kept for every client: its weights live in a ResidencyManager under the configured
// VRAM budget (CudaDevice when this build has CUDA and a GPU is present, else HostDevice, where "device"
// memory is host memory with the same accounting), sized by one memory plan (memory_plan.h), and
// one PageScheduler thread runs it (page_scheduler.h).
// A job's worker renders its pages at render_dpi and preprocesses them in parallel with other jobs,
// keeps up to max_pages_per_user of them in the scheduler (so pages of one document, and of every
// client, share its steps), and turns each page's model text into blocks (document/model_output_parser.h) and
// MinerU's output files, NAME_model_output.txt included. GeneratePageText takes one page image from
// an OpenAI client (the HTTP listener) through the same preprocessing and scheduler.
// Run-time control: Reconfigure() applies a new vram_budget (SIGHUP) at once — shrinking frees
// unleased weights within a pass; Tick() has the model thread demote the weights to pinned memory once
// keep_alive has passed without a page (the next page brings them back).
#pragma once

#include <memory>

#include "common/config.h"
#include "pipeline/backend.h"

namespace mineru::pipeline {

class ModelBackend final : public Backend {
 public:
  // Loads and validates the model folder (config, checkpoint header, tokenizer.json); weights stay
  // on the disk tier until the first page needs them. Errors name the file and what is wrong.
  static Result<std::unique_ptr<ModelBackend>> Load(const Config& config);
  ~ModelBackend() override;

  std::string_view name() const override { return "vlm"; }
  Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                              const CancelFlag& cancel) override;
  Result<PageText> GeneratePageText(const PageImageRequest& request, const CancelFlag& cancel) override;
  int64_t PageTokenLimit() const override;
  BackendStats Stats() const override;
  Status Reconfigure(const Config& config) override;
  Result<uint64_t> SetVramBudget(uint64_t bytes) override;
  void Tick() override;
  void Cancel(uint64_t job_id) override;
  int64_t JobSlots() const override;
  std::string StatusLine() const override;

  // One line for the log: device, budgets, what fits.
  std::string Describe() const;

 private:
  struct State;
  explicit ModelBackend(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace mineru::pipeline
