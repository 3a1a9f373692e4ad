#include "pipeline/model_runtime.h"

#include <algorithm>
#include <filesystem>

#include "common/cpu_count.h"
#include "engine/checkpoint.h"
#include "engine/model_units.h"
#include "engine/prompt_template.h"
#include "engine/tokenizer_prompt.h"
#include "residency/cuda_device.h"
#include "residency/host_device.h"

namespace mineru::pipeline {
namespace {

Result<std::unique_ptr<residency::Device>> OpenDevice() {
#if defined(MINERU_HAVE_CUDA)
  if (ModelRunsOnGpu()) return residency::CreateCudaDevice(0);
#endif
  return std::unique_ptr<residency::Device>(std::make_unique<residency::HostDevice>());
}

// The MinerU prompt's ids with its one image token, checked against the model's vocabulary.
Result<std::vector<int64_t>> LoadPrompt(const std::filesystem::path& tokenizer_path,
                                        const engine::Tokenizer& tokenizer, const engine::ModelConfig& mc) {
  MINERU_ASSIGN_OR_RETURN(int32_t image_token,
                          engine::ResolveImageTokenId(tokenizer, mc.multimodal->image_token_index));
  MINERU_ASSIGN_OR_RETURN(std::vector<int32_t> prompt,
                          engine::EncodeImagePrompt(tokenizer, engine::MineruPrompt(), image_token));
  for (int32_t id : prompt) {
    if (id < 0 || id >= mc.text.vocab_size) {
      return InvalidArgument(tokenizer_path.string() + " encodes the MinerU prompt to token " +
                             std::to_string(id) + ", outside the model's vocabulary of " +
                             std::to_string(mc.text.vocab_size));
    }
  }
  return std::vector<int64_t>(prompt.begin(), prompt.end());
}

PageSchedulerOptions SchedulerOptions(const ModelRuntime& rt, std::vector<int64_t> prompt) {
  const Config& config = rt.config;
  const engine::ModelConfig& mc = rt.model->config();
  PageSchedulerOptions so;
  so.model = rt.model.get();
  so.tokenizer = rt.tokenizer.get();
  so.prompt_tokens = std::move(prompt);
  so.max_new_tokens = rt.plan.max_new_tokens;
  so.no_repeat_ngram_size = mc.generation.no_repeat_ngram_size;
  so.eos_token_ids = mc.generation.eos_token_ids;
  so.max_running = config.max_batch;
  so.step_tokens = rt.plan.step_tokens;
  so.prefill_chunk_tokens = config.prefill_chunk_tokens;
  so.vision_batch_crops = rt.plan.vision_batch_crops;
  so.max_pages_per_user = config.max_pages_per_user > 0 ? config.max_pages_per_user : config.max_batch;
  so.swap = config.preemption == "swap";
  so.static_batching = config.batching == "static";
  so.compute_threads = config.compute_threads > 0 ? static_cast<int>(config.compute_threads) : UsableCpus();
  return so;
}

}  // namespace

bool ModelRunsOnGpu() {
#if defined(MINERU_HAVE_CUDA)
  return residency::CudaDeviceAvailable();
#else
  return false;
#endif
}

Result<std::unique_ptr<ModelRuntime>> OpenModelRuntime(const Config& config) {
  auto rt = std::make_unique<ModelRuntime>();
  rt->config = config;
  const std::filesystem::path dir = config.model_dir;
  MINERU_ASSIGN_OR_RETURN(engine::ModelConfig mc, engine::ModelConfig::Load(dir));
  if (!mc.multimodal) {
    return InvalidArgument(dir.string() +
                           " holds a text-only model; minerud needs MinerU 2.0 (a vision tower)");
  }
  const std::filesystem::path tokenizer_path = dir / "tokenizer.json";
  MINERU_ASSIGN_OR_RETURN(rt->tokenizer, engine::Tokenizer::FromFile(tokenizer_path));
  MINERU_ASSIGN_OR_RETURN(std::vector<int64_t> prompt, LoadPrompt(tokenizer_path, *rt->tokenizer, mc));

  // Every size from the memory plan: weights, the KV pool, a step's and a vision burst's workspace.
  MINERU_ASSIGN_OR_RETURN(engine::Checkpoint ckpt, engine::Checkpoint::Open(dir));
  MINERU_ASSIGN_OR_RETURN(std::vector<engine::UnitInfo> units, engine::ListModelUnits(ckpt, mc));
  MINERU_ASSIGN_OR_RETURN(const at::ScalarType dtype, ResolveComputeDtype(config.compute_dtype, ckpt));
  MINERU_ASSIGN_OR_RETURN(rt->device, OpenDevice());
  MINERU_ASSIGN_OR_RETURN(
      rt->plan, PlanModelMemory(mc, units, dtype, rt->on_cpu(), config, static_cast<int64_t>(prompt.size())));
  MINERU_RETURN_IF_ERROR(CheckBudget(rt->plan.gpu_budget_bytes, rt->plan));
  MINERU_ASSIGN_OR_RETURN(rt->manager, residency::ResidencyManager::Create(
                                           rt->device.get(), ResidencyOptionsFor(rt->plan, config)));

  engine::ModelOptions mo;
  mo.compute_dtype = dtype;
  mo.kv_page_tokens = config.kv_page_tokens;
  mo.kv_capacity_tokens = rt->plan.kv_tokens;
  mo.residency = rt->manager.get();
  MINERU_ASSIGN_OR_RETURN(rt->model, engine::Mineru2Model::Load(dir, mo));
  rt->scheduler_options = SchedulerOptions(*rt, std::move(prompt));
  return rt;
}

}  // namespace mineru::pipeline
