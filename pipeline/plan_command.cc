#include "pipeline/plan_command.h"

#include <cstdio>
#include <filesystem>

#include "common/config_loader.h"
#include "engine/checkpoint.h"
#include "engine/compute_probe.h"
#include "engine/model_config.h"
#include "engine/model_units.h"
#include "residency/host_device.h"
#include "residency/link_probe.h"
#include "residency/planner.h"

namespace mineru::pipeline {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 64;
constexpr int kExitDataErr = 65;
constexpr int kExitSoftware = 70;

struct PlanArgs {
  std::string model_dir;
  uint64_t vram_budget_bytes = 0;
  uint64_t pinned_budget_bytes = 0;
  int64_t max_batch = 0;
  int64_t context_tokens = 8192;
  int64_t prefill_chunk_tokens = 0;
};

// The daemon's config gives the defaults (model, budgets, batch, prefill chunk); flags override them.
Result<PlanArgs> ParsePlanArgs(const Config& config, const std::vector<std::string>& args) {
  PlanArgs out;
  out.model_dir = config.model_dir;
  out.vram_budget_bytes = config.vram_budget_bytes;
  out.pinned_budget_bytes = config.pinned_budget_bytes;
  out.max_batch = config.max_batch;
  out.prefill_chunk_tokens = config.prefill_chunk_tokens;
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
    } else if (a == "--context-tokens") {
      MINERU_ASSIGN_OR_RETURN(std::string v, value());
      MINERU_ASSIGN_OR_RETURN(out.context_tokens, ParseInt(v, 1, 1 << 20));
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

residency::UnitKind ToResidencyKind(engine::UnitKind kind) {
  switch (kind) {
    case engine::UnitKind::kEmbedding:
      return residency::UnitKind::kEmbedding;
    case engine::UnitKind::kHead:
      return residency::UnitKind::kLmHead;
    case engine::UnitKind::kDecoderLayer:
      return residency::UnitKind::kDecoderLayer;
    case engine::UnitKind::kVisionEmbeddings:
      return residency::UnitKind::kVisionEmbedding;
    case engine::UnitKind::kVisionLayer:
      return residency::UnitKind::kVisionLayer;
    case engine::UnitKind::kProjector:
      return residency::UnitKind::kProjector;
  }
  return residency::UnitKind::kOther;
}

engine::StorageDtype DtypeFromConfig(const engine::ModelConfig& config) {
  if (config.text.torch_dtype == "float32") return engine::StorageDtype::kF32;
  if (config.text.torch_dtype == "float16") return engine::StorageDtype::kF16;
  return engine::StorageDtype::kBF16;
}

// The units with sizes from the checkpoint when the folder has weights, else from the config alone.
Result<std::vector<engine::UnitInfo>> LoadUnits(const std::filesystem::path& dir,
                                                const engine::ModelConfig& config, std::string* source) {
  std::error_code ec;
  bool has_weights = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".safetensors") has_weights = true;
  }
  if (!has_weights) {
    *source = "config only (no .safetensors in the folder)";
    return engine::UnitsFromConfig(config, DtypeFromConfig(config), config.text.tie_word_embeddings);
  }
  MINERU_ASSIGN_OR_RETURN(engine::Checkpoint checkpoint, engine::Checkpoint::Open(dir));
  *source = "checkpoint headers";
  return engine::ListModelUnits(checkpoint, config);
}

Result<std::string> Plan(const PlanArgs& args) {
  MINERU_ASSIGN_OR_RETURN(engine::ModelConfig config, engine::ModelConfig::Load(args.model_dir));
  std::string source;
  MINERU_ASSIGN_OR_RETURN(std::vector<engine::UnitInfo> units, LoadUnits(args.model_dir, config, &source));

  residency::HostDevice device;
  MINERU_ASSIGN_OR_RETURN(residency::LinkProbe link, residency::MeasureLinkProbe(device));
  MINERU_ASSIGN_OR_RETURN(engine::ComputeProbe compute, engine::MeasureComputeProbe());

  residency::PlanRequest request;
  request.probe = link;
  request.gpu_budget_bytes = args.vram_budget_bytes;
  request.pinned_budget_bytes = args.pinned_budget_bytes;
  request.max_batch = static_cast<int>(args.max_batch);
  const auto& t = config.text;
  const uint64_t dtype_bytes = engine::StorageDtypeSize(DtypeFromConfig(config));
  const uint64_t kv_per_token =
      static_cast<uint64_t>(t.num_layers * 2 * t.num_kv_heads * t.head_dim) * dtype_bytes;
  request.kv_bytes_per_seq = kv_per_token * static_cast<uint64_t>(args.context_tokens);
  // One prefill chunk's activations (float32): hidden states, q/k/v and the MLP's two branches.
  request.workspace_bytes_fixed = static_cast<uint64_t>(args.prefill_chunk_tokens) *
                                  static_cast<uint64_t>(4 * t.hidden_size + 2 * t.intermediate_size) * 4;
  request.workspace_bytes_per_seq = static_cast<uint64_t>(t.vocab_size) * 4;  // one row of logits
  for (const auto& unit : units) {
    residency::PlanUnit pu;
    pu.name = unit.name;
    pu.kind = ToResidencyKind(unit.kind);
    pu.index = static_cast<int>(unit.layer);
    pu.size_bytes = unit.size_bytes;
    engine::UnitComputeEstimate e = engine::EstimateDecodeCompute(unit, compute);
    pu.compute_ms_fixed = e.ms_fixed;
    pu.compute_ms_per_seq = e.ms_per_seq;
    request.units.push_back(std::move(pu));
  }
  MINERU_ASSIGN_OR_RETURN(std::string table, residency::PlanText(request));

  char header[1024];
  std::snprintf(header, sizeof header,
                "model: %s (%s; %zu units, %s)\n"
                "budget: %s VRAM, %s pinned; context %lld tokens per sequence (KV %s)\n"
                "probe: link %.1f GB/s pinned->device, %.1f GB/s pageable->device; compute %.0f GFLOP/s, "
                "weight reads %.1f GB/s\n"
                "compute figures are this machine's CPU; on a GPU host they come from the GPU.\n\n",
                args.model_dir.c_str(), config.model_type.c_str(), units.size(), source.c_str(),
                FormatByteSize(args.vram_budget_bytes).c_str(),
                FormatByteSize(args.pinned_budget_bytes).c_str(),
                static_cast<long long>(args.context_tokens),  // NOLINT(google-runtime-int)
                FormatByteSize(request.kv_bytes_per_seq).c_str(), link.h2d_gbps, link.h2d_pageable_gbps,
                compute.matmul_gflops, compute.weight_read_gbps);
  return std::string(header) + table;
}

}  // namespace

std::string PlanUsage() {
  return "Usage: minerud plan [--config FILE] [--model DIR] [--vram-budget SIZE] [--pinned-budget SIZE]\n"
         "                    [--max-batch N] [--context-tokens N]\n"
         "Defaults come from the daemon's config file (--config, else /etc/minerud.conf when present):\n"
         "model_dir (a folder, or a name in models_dir), vram_budget, pinned_budget, max_batch and\n"
         "prefill_chunk; --context-tokens defaults to 8192.\n"
         "Prints where each unit of the model would live under the budget, the batch size, and the\n"
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
