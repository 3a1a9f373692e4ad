// The model's units: the weights that move together between tiers (one decoder layer, one SigLIP
// layer, the embedding, the head, the projector). Names and shapes follow from the config alone;
// with a checkpoint the list also carries dtypes, files, offsets and byte sizes, validated against
// the config. The planner (`minerud plan`) uses the config-only sizes when no weights exist.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/model_config.h"

namespace mineru::engine {

struct UnitTensor {
  std::string name;  // HF weight name
  std::vector<int64_t> shape;
  StorageDtype dtype = StorageDtype::kBF16;
  std::string file;           // empty when computed from the config
  uint64_t offset_bytes = 0;  // in `file`
  uint64_t size_bytes = 0;
};

enum class UnitKind { kEmbedding, kDecoderLayer, kHead, kVisionEmbeddings, kVisionLayer, kProjector };

struct UnitInfo {
  std::string name;  // "embed_tokens", "decoder.3", "head", "vision.embeddings", "vision.5", "projector"
  UnitKind kind = UnitKind::kEmbedding;
  int64_t layer = -1;  // for layer units
  std::vector<UnitTensor> tensors;
  uint64_t size_bytes = 0;
};

std::string DecoderLayerPrefix(int64_t i);  // "model.layers.{i}."
std::string VisionLayerPrefix(
    int64_t j);  // "model.vision_tower.vision_tower.vision_model.encoder.layers.{j}."
extern const char kVisionEmbeddingsPrefix[];

// The units a config implies, in execution order (vision first), with `dtype` for every tensor.
// `tied`: the head reuses embed_tokens (no lm_head.weight).
std::vector<UnitInfo> UnitsFromConfig(const ModelConfig& config, StorageDtype dtype, bool tied);

// The units of a checkpoint: every expected tensor must be present with the expected shape and a float
// dtype (F32/F16/BF16). Tied is decided by the absence of lm_head.weight.
Result<std::vector<UnitInfo>> ListModelUnits(const Checkpoint& checkpoint, const ModelConfig& config);

// True when the checkpoint has no lm_head.weight (the head reuses embed_tokens).
bool CheckpointIsTied(const Checkpoint& checkpoint);

uint64_t TotalBytes(const std::vector<UnitInfo>& units);

}  // namespace mineru::engine
