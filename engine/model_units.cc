#include "engine/model_units.h"

namespace mineru::engine {

const char kVisionEmbeddingsPrefix[] = "model.vision_tower.vision_tower.vision_model.embeddings.";

std::string DecoderLayerPrefix(int64_t i) { return "model.layers." + std::to_string(i) + "."; }
std::string VisionLayerPrefix(int64_t j) {
  return "model.vision_tower.vision_tower.vision_model.encoder.layers." + std::to_string(j) + ".";
}

namespace {

void Add(UnitInfo& u, const std::string& name, std::vector<int64_t> shape, StorageDtype dtype) {
  UnitTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  uint64_t n = StorageDtypeSize(dtype);
  for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);
  t.size_bytes = n;
  u.size_bytes += n;
  u.tensors.push_back(std::move(t));
}

UnitInfo MakeUnit(std::string name, UnitKind kind, int64_t layer = -1) {
  UnitInfo u;
  u.name = std::move(name);
  u.kind = kind;
  u.layer = layer;
  return u;
}

}  // namespace

std::vector<UnitInfo> UnitsFromConfig(const ModelConfig& config, StorageDtype dt, bool tied) {
  std::vector<UnitInfo> units;
  const TextConfig& t = config.text;
  if (config.multimodal) {
    const VisionConfig& v = config.multimodal->vision;
    UnitInfo emb = MakeUnit("vision.embeddings", UnitKind::kVisionEmbeddings);
    const std::string p = kVisionEmbeddingsPrefix;
    Add(emb, p + "patch_embedding.weight", {v.hidden_size, v.num_channels, v.patch_size, v.patch_size}, dt);
    Add(emb, p + "patch_embedding.bias", {v.hidden_size}, dt);
    Add(emb, p + "position_embedding.weight", {v.patches_per_side * v.patches_per_side, v.hidden_size}, dt);
    units.push_back(std::move(emb));
    for (int64_t j = 0; j < v.num_used_layers; ++j) {
      UnitInfo u = MakeUnit("vision." + std::to_string(j), UnitKind::kVisionLayer, j);
      const std::string lp = VisionLayerPrefix(j);
      for (const char* ln : {"layer_norm1", "layer_norm2"}) {
        Add(u, lp + ln + ".weight", {v.hidden_size}, dt);
        Add(u, lp + ln + ".bias", {v.hidden_size}, dt);
      }
      for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
        Add(u, lp + "self_attn." + proj + ".weight", {v.hidden_size, v.hidden_size}, dt);
        Add(u, lp + "self_attn." + proj + ".bias", {v.hidden_size}, dt);
      }
      Add(u, lp + "mlp.fc1.weight", {v.intermediate_size, v.hidden_size}, dt);
      Add(u, lp + "mlp.fc1.bias", {v.intermediate_size}, dt);
      Add(u, lp + "mlp.fc2.weight", {v.hidden_size, v.intermediate_size}, dt);
      Add(u, lp + "mlp.fc2.bias", {v.hidden_size}, dt);
      units.push_back(std::move(u));
    }
    UnitInfo proj = MakeUnit("projector", UnitKind::kProjector);
    Add(proj, "model.mm_projector.0.weight", {t.hidden_size, v.hidden_size}, dt);
    Add(proj, "model.mm_projector.0.bias", {t.hidden_size}, dt);
    Add(proj, "model.mm_projector.2.weight", {t.hidden_size, t.hidden_size}, dt);
    Add(proj, "model.mm_projector.2.bias", {t.hidden_size}, dt);
    Add(proj, "model.image_newline", {t.hidden_size}, dt);
    units.push_back(std::move(proj));
  }
  UnitInfo emb = MakeUnit("embed_tokens", UnitKind::kEmbedding);
  Add(emb, "model.embed_tokens.weight", {t.vocab_size, t.hidden_size}, dt);
  units.push_back(std::move(emb));
  const int64_t kv = t.num_kv_heads * t.head_dim;
  for (int64_t i = 0; i < t.num_layers; ++i) {
    UnitInfo u = MakeUnit("decoder." + std::to_string(i), UnitKind::kDecoderLayer, i);
    const std::string lp = DecoderLayerPrefix(i);
    Add(u, lp + "input_layernorm.weight", {t.hidden_size}, dt);
    Add(u, lp + "self_attn.q_proj.weight", {t.hidden_size, t.hidden_size}, dt);
    Add(u, lp + "self_attn.q_proj.bias", {t.hidden_size}, dt);
    Add(u, lp + "self_attn.k_proj.weight", {kv, t.hidden_size}, dt);
    Add(u, lp + "self_attn.k_proj.bias", {kv}, dt);
    Add(u, lp + "self_attn.v_proj.weight", {kv, t.hidden_size}, dt);
    Add(u, lp + "self_attn.v_proj.bias", {kv}, dt);
    Add(u, lp + "self_attn.o_proj.weight", {t.hidden_size, t.hidden_size}, dt);
    Add(u, lp + "post_attention_layernorm.weight", {t.hidden_size}, dt);
    Add(u, lp + "mlp.gate_proj.weight", {t.intermediate_size, t.hidden_size}, dt);
    Add(u, lp + "mlp.up_proj.weight", {t.intermediate_size, t.hidden_size}, dt);
    Add(u, lp + "mlp.down_proj.weight", {t.hidden_size, t.intermediate_size}, dt);
    units.push_back(std::move(u));
  }
  UnitInfo head = MakeUnit("head", UnitKind::kHead);
  Add(head, "model.norm.weight", {t.hidden_size}, dt);
  if (!tied) Add(head, "lm_head.weight", {t.vocab_size, t.hidden_size}, dt);
  units.push_back(std::move(head));
  return units;
}

bool CheckpointIsTied(const Checkpoint& checkpoint) { return !checkpoint.Has("lm_head.weight"); }

Result<std::vector<UnitInfo>> ListModelUnits(const Checkpoint& checkpoint, const ModelConfig& config) {
  std::vector<UnitInfo> units = UnitsFromConfig(config, StorageDtype::kBF16, CheckpointIsTied(checkpoint));
  for (UnitInfo& u : units) {
    u.size_bytes = 0;
    for (UnitTensor& t : u.tensors) {
      Checkpoint::Located l = checkpoint.Find(t.name);
      if (!l.file) return NotFound(checkpoint.dir().string() + ": tensor \"" + t.name + "\" is missing");
      if (l.entry->shape != t.shape) {
        std::string got, want;
        for (int64_t d : l.entry->shape) got += (got.empty() ? "" : ",") + std::to_string(d);
        for (int64_t d : t.shape) want += (want.empty() ? "" : ",") + std::to_string(d);
        return InvalidArgument(checkpoint.dir().string() + ": tensor \"" + t.name + "\" has shape [" + got +
                               "], the config implies [" + want + "]");
      }
      const StorageDtype d = l.entry->dtype;
      if (d != StorageDtype::kF32 && d != StorageDtype::kF16 && d != StorageDtype::kBF16) {
        return InvalidArgument(checkpoint.dir().string() + ": tensor \"" + t.name + "\" has dtype " +
                               std::string(StorageDtypeName(d)) + "; weights must be F32, F16 or BF16");
      }
      t.dtype = d;
      t.file = l.file->path();
      t.offset_bytes = l.entry->offset_bytes;
      t.size_bytes = l.entry->size_bytes;
      u.size_bytes += t.size_bytes;
    }
  }
  return units;
}

uint64_t TotalBytes(const std::vector<UnitInfo>& units) {
  uint64_t n = 0;
  for (const auto& u : units) n += u.size_bytes;
  return n;
}

}  // namespace mineru::engine
