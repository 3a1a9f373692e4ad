#include "engine/dummy_checkpoint.h"

#include <cstring>

#include "engine/model_units.h"
#include "engine/torch_status.h"

namespace mineru::engine {

Result<MappedRegion> GenerateDummySafetensors(const ModelConfig& config, StorageDtype dtype, uint64_t seed) {
  const std::vector<UnitInfo> units = UnitsFromConfig(config, dtype, config.text.tie_word_embeddings);
  // The header: every tensor packed in unit order.
  std::vector<TensorEntry> entries;
  uint64_t data_bytes = 0;
  for (const UnitInfo& u : units) {
    for (const UnitTensor& t : u.tensors) {
      entries.push_back({t.name, t.dtype, t.shape, 0, t.size_bytes});
      data_bytes += t.size_bytes;
    }
  }
  const std::string header = SerializeSafetensorsHeader(entries);
  const uint64_t data_start = header.size();
  MINERU_ASSIGN_OR_RETURN(MappedRegion region, MappedRegion::Anonymous(data_start + data_bytes));
  std::memcpy(region.data(), header.data(), header.size());
  MINERU_RETURN_IF_ERROR(CatchTorch("generating dummy weights", [&]() -> Status {
    at::Generator gen = at::detail::createCPUGenerator(seed);
    uint64_t offset = data_start;
    for (const UnitInfo& u : units) {
      for (const UnitTensor& t : u.tensors) {
        at::Tensor dst = at::from_blob(region.data() + offset, t.shape,
                                       at::TensorOptions().dtype(StorageDtypeToScalarType(t.dtype)));
        const bool norm_weight =
            t.name.find("norm") != std::string::npos && t.name.find("weight") != std::string::npos;
        if (norm_weight) {
          dst.fill_(1.0);
        } else {
          dst.copy_(at::empty(t.shape, at::kFloat).normal_(0.0, 0.02, gen));
        }
        offset += t.size_bytes;
      }
    }
    return Status::Ok();
  }));
  return region;
}

Result<std::shared_ptr<const Checkpoint>> MakeDummyCheckpoint(const ModelConfig& config, StorageDtype dtype,
                                                              uint64_t seed) {
  MINERU_ASSIGN_OR_RETURN(MappedRegion region, GenerateDummySafetensors(config, dtype, seed));
  MINERU_ASSIGN_OR_RETURN(SafetensorsFile file,
                          SafetensorsFile::FromRegion("dummy.safetensors", std::move(region)));
  std::vector<SafetensorsFile> files;
  files.push_back(std::move(file));
  MINERU_ASSIGN_OR_RETURN(Checkpoint checkpoint, Checkpoint::FromFiles("(dummy weights)", std::move(files)));
  return std::make_shared<const Checkpoint>(std::move(checkpoint));
}

}  // namespace mineru::engine
