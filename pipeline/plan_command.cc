#include "pipeline/plan_command.h"

#include <cstdio>
#include <filesystem>

#include "common/config_loader.h"
#include "engine/checkpoint.h"
#include "engine/compute_probe.h"
#include "engine/model_config.h"
#include "engine/model_units.h"
#include "engine/paged_kv_cache.h"
#include "engine/prompt_template.h"
#include "engine/tokenizer.h"
#include "engine/tokenizer_prompt.h"
#include "pipeline/memory_plan.h"
#include "pipeline/model_runtime.h"
#include "residency/host_device.h"
#include "residency/link_probe.h"
#include "residency/planner.h"
#include "residency/stats.h"

namespace mineru::pipeline {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 64;
constexpr int kExitDataErr = 65;
constexpr int kExitSoftware = 70;

// The daemon's config gives the defaults (model, budgets, batch, KV pool, every other key the memory
// plan reads); flags override them.
Result<Config> ParsePlanArgs(const Config& config, const std::vector<std::string>& args) {
  Config out = config;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return InvalidArgument(a + " needs a value");
      return args[++i];
    };
    if (a == "--model") {
      MINERU_ASSIGN_OR_RETURN(out.model_dir, value());
    } else if (a == "--vram-budget") {
      MINERU_ASSIGN_OR_RETURN(std::string v, value());
      MINERU_ASSIGN_OR_RETURN(out.vram_budget_bytes, ParseByteSize(v));
    } else if (a == "--pinned-budget") {
      MINERU_ASSIGN_OR_RETURN(std::string v, value());
      MINERU_ASSIGN_OR_RETURN(out.pinned_budget_bytes, ParseByteSize(v));
    } else if (a == "--max-batch") {
      MINERU_ASSIGN_OR_RETURN(std::string v, value());
      MINERU_ASSIGN_OR_RETURN(out.max_batch, ParseInt(v, 1, 1024));
    } else if (a == "--kv-cache-tokens") {
      MINERU_ASSIGN_OR_RETURN(std::string v, value());
      MINERU_ASSIGN_OR_RETURN(out.kv_cache_tokens, ParseInt(v, 0, int64_t{1} << 30));
    } else {
      return InvalidArgument("unknown option '" + a + "'");
    }
  }
  if (out.model_dir.empty())
    return InvalidArgument("--model DIR is required (or model_dir in the config file)");
  MINERU_ASSIGN_OR_RETURN(out.model_dir, ResolveModelDir(out.model_dir, config.models_dir));
  if (out.vram_budget_bytes == 0) {
    return InvalidArgument("--vram-budget SIZE is required (e.g. 6G), or vram_budget in the config file");
  }
  return out;
}

engine::StorageDtype DtypeFromConfig(const engine::ModelConfig& config) {
  if (config.text.torch_dtype == "float32") return engine::StorageDtype::kF32;
  if (config.text.torch_dtype == "float16") return engine::StorageDtype::kF16;
  return engine::StorageDtype::kBF16;
}

// The model's units and compute dtype as the daemon would load them: sizes from the checkpoint when
// the folder has weights, else from the config alone.
struct PlanModel {
  std::vector<engine::UnitInfo> units;
  at::ScalarType dtype = at::kBFloat16;
  std::string source;
};

Result<PlanModel> LoadPlanModel(const std::filesystem::path& dir, const engine::ModelConfig& mc,
                                const Config& config) {
  PlanModel m;
  std::error_code ec;
  bool has_weights = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".safetensors") has_weights = true;
  }
  if (has_weights) {
    MINERU_ASSIGN_OR_RETURN(engine::Checkpoint checkpoint, engine::Checkpoint::Open(dir));
    MINERU_ASSIGN_OR_RETURN(m.units, engine::ListModelUnits(checkpoint, mc));
    MINERU_ASSIGN_OR_RETURN(m.dtype, ResolveComputeDtype(config.compute_dtype, checkpoint));
    m.source = "checkpoint headers";
    return m;
  }
  const engine::StorageDtype stored = DtypeFromConfig(mc);
  m.units = engine::UnitsFromConfig(mc, stored, mc.text.tie_word_embeddings);
  MINERU_ASSIGN_OR_RETURN(
      m.dtype, ResolveComputeDtype(config.compute_dtype, engine::StorageDtypeToScalarType(stored)));
  m.source = "config only (no .safetensors in the folder)";
  return m;
}

// The MinerU prompt's token count with its image token: exact with the folder's tokenizer, else its
// byte count (a byte-level BPE token holds at least one byte), an upper bound.
Result<int64_t> PromptTokens(const std::filesystem::path& dir, const engine::ModelConfig& mc, bool* exact) {
  const std::filesystem::path path = dir / "tokenizer.json";
  *exact = std::filesystem::exists(path);
  if (!*exact) return static_cast<int64_t>(engine::MineruPrompt().size());
  MINERU_ASSIGN_OR_RETURN(std::unique_ptr<engine::Tokenizer> tokenizer, engine::Tokenizer::FromFile(path));
  MINERU_ASSIGN_OR_RETURN(int32_t image_token,
                          engine::ResolveImageTokenId(*tokenizer, mc.multimodal->image_token_index));
  MINERU_ASSIGN_OR_RETURN(std::vector<int32_t> ids,
                          engine::EncodeImagePrompt(*tokenizer, engine::MineruPrompt(), image_token));
  return static_cast<int64_t>(ids.size());
}

Result<std::string> Plan(const Config& args) {
  MINERU_ASSIGN_OR_RETURN(engine::ModelConfig mc, engine::ModelConfig::Load(args.model_dir));
  if (!mc.multimodal) {
    return InvalidArgument(args.model_dir +
                           " holds a text-only model; minerud needs MinerU 2.0 (a vision tower)");
  }
  MINERU_ASSIGN_OR_RETURN(PlanModel model, LoadPlanModel(args.model_dir, mc, args));
  bool exact_prompt = false;
  MINERU_ASSIGN_OR_RETURN(int64_t prompt_tokens, PromptTokens(args.model_dir, mc, &exact_prompt));
  const bool on_cpu = !ModelRunsOnGpu();
  // The daemon's own memory plan and manager options: the placement below is the one it builds.
  MINERU_ASSIGN_OR_RETURN(ModelMemoryPlan plan,
                          PlanModelMemory(mc, model.units, model.dtype, on_cpu, args, prompt_tokens));
  MINERU_RETURN_IF_ERROR(CheckBudget(plan.gpu_budget_bytes, plan));
  residency::PlanRequest request = PlacementRequest(plan, model.units, ResidencyOptionsFor(plan, args));

  residency::HostDevice device;
  MINERU_ASSIGN_OR_RETURN(request.probe, residency::MeasureLinkProbe(device));
  MINERU_ASSIGN_OR_RETURN(engine::ComputeProbe compute, engine::MeasureComputeProbe());
  for (size_t i = 0; i < model.units.size(); ++i) {
    const engine::UnitComputeEstimate e = engine::EstimateDecodeCompute(model.units[i], compute);
    request.units[i].compute_ms_fixed = e.ms_fixed;
    request.units[i].compute_ms_per_seq = e.ms_per_seq;
  }
  MINERU_ASSIGN_OR_RETURN(std::string table, residency::PlanText(request));

  const residency::LinkProbe& link = request.probe;
  const uint64_t kv_per_token = engine::PagedKvCache::BytesPerToken(mc.text, model.dtype);
  char header[2048];
  std::snprintf(header, sizeof header,
                "model: %s (%s; %zu units, %s)\n"
                "budget: %s VRAM, %s pinned; computing in %s on the %s\n"
                "KV pool: %lld tokens, %s (%s per token); a page holds up to %lld tokens (%lld of prompt and "
                "image%s, %lld new)\n"
                "workspace: %s (the larger of a step of %lld tokens and a vision burst of %lld crops); least "
                "budget for this KV pool %s\n"
                "probe: link %.1f GB/s pinned->device, %.1f GB/s pageable->device; compute %.0f GFLOP/s, "
                "weight reads %.1f GB/s\n"
                "compute figures are this machine's CPU; on a GPU host they come from the GPU.\n\n",
                args.model_dir.c_str(), mc.model_type.c_str(), model.units.size(), model.source.c_str(),
                FormatByteSize(plan.gpu_budget_bytes).c_str(),
                residency::FormatBytes(plan.pinned_budget_bytes).c_str(),
                model.dtype == at::kBFloat16 ? "bf16" : "f32", on_cpu ? "CPU" : "GPU",
                static_cast<long long>(plan.kv_tokens),  // NOLINT(google-runtime-int)
                residency::FormatBytes(plan.kv_bytes).c_str(), residency::FormatBytes(kv_per_token).c_str(),
                static_cast<long long>(plan.page_tokens),    // NOLINT(google-runtime-int)
                static_cast<long long>(plan.prompt_tokens),  // NOLINT(google-runtime-int)
                exact_prompt ? "" : ", at most: no tokenizer.json",
                static_cast<long long>(plan.max_new_tokens),  // NOLINT(google-runtime-int)
                residency::FormatBytes(plan.workspace_bytes).c_str(),
                static_cast<long long>(plan.step_tokens),         // NOLINT(google-runtime-int)
                static_cast<long long>(plan.vision_batch_crops),  // NOLINT(google-runtime-int)
                residency::FormatBytes(plan.min_budget_bytes).c_str(), link.h2d_gbps, link.h2d_pageable_gbps,
                compute.matmul_gflops, compute.weight_read_gbps);
  return std::string(header) + table;
}

}  // namespace

std::string PlanUsage() {
  return "Usage: minerud plan [--config FILE] [--model DIR] [--vram-budget SIZE] [--pinned-budget SIZE]\n"
         "                    [--max-batch N] [--kv-cache-tokens N]\n"
         "Defaults come from the daemon's config file (--config, else /etc/minerud.conf when present):\n"
         "model_dir (a folder, or a name in models_dir), vram_budget, pinned_budget, max_batch,\n"
         "kv_cache_tokens and the other keys the daemon's memory plan reads (kv_page_tokens,\n"
         "prefill_chunk, step_tokens, vision_batch_tokens, max_new_tokens, compute_dtype, preemption).\n"
         "Prints the daemon's memory plan for the model (KV pool, workspace, minimum budget), where each\n"
         "unit would live under the budget (the placement the daemon builds), the batch size, and the\n"
         "predicted decode pass time and throughput. Loads nothing onto the device; a folder with only\n"
         "config files (no weights) is planned from the config.\n";
}

int RunPlanCommand(const Config& config, const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs(PlanUsage().c_str(), stdout);
      return kExitOk;
    }
  }
  auto parsed = ParsePlanArgs(config, args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "minerud plan: %s\n%s", parsed.status().message().c_str(), PlanUsage().c_str());
    return kExitUsage;
  }
  auto text = Plan(*parsed);
  if (!text.ok()) {
    std::fprintf(stderr, "minerud plan: %s\n", text.status().ToString().c_str());
    return text.status().code() == StatusCode::kInternal ? kExitSoftware : kExitDataErr;
  }
  std::fputs(text->c_str(), stdout);
  return kExitOk;
}

}  // namespace mineru::pipeline
