#include "engine/dummy_model_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <span>
#include <system_error>

#include "common/unique_fd.h"
#include "engine/dummy_checkpoint.h"
#include "engine/dummy_tokenizer.h"
#include "engine/model_config.h"

namespace mineru::engine {
namespace {

Status WriteBytes(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoStatus(errno, "cannot create " + path.string());
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd.get(), bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoStatus(n < 0 ? errno : ENOSPC, "cannot write " + path.string());
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status CopyConfigFiles(const std::filesystem::path& config_dir, const std::filesystem::path& out_dir,
                       const std::string& vision_tower) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto options = fs::copy_options::overwrite_existing | fs::copy_options::recursive;
  for (const char* name : {"config.json", "generation_config.json"}) {
    if (!fs::exists(config_dir / name)) continue;
    fs::copy(config_dir / name, out_dir / name, options, ec);
    if (ec) return ErrnoStatus(ec.value(), std::string("cannot copy ") + name);
  }
  fs::create_directories(out_dir / vision_tower, ec);
  if (!ec) fs::copy(config_dir / vision_tower, out_dir / vision_tower, options, ec);
  if (ec) return ErrnoStatus(ec.value(), "cannot copy the vision folder " + vision_tower);
  return Status::Ok();
}

}  // namespace

Status WriteDummyModelFolder(const std::filesystem::path& config_dir, const std::filesystem::path& out_dir,
                             StorageDtype dtype, uint64_t seed) {
  MINERU_ASSIGN_OR_RETURN(ModelConfig config, ModelConfig::Load(config_dir));
  if (!config.multimodal) return InvalidArgument(config_dir.string() + " holds a text-only model config");
  if (config.generation.eos_token_ids.empty()) {
    return InvalidArgument(config_dir.string() + " names no EOS token");
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return ErrnoStatus(ec.value(), "cannot create " + out_dir.string());
  MINERU_RETURN_IF_ERROR(CopyConfigFiles(config_dir, out_dir, config.multimodal->vision_tower));
  MINERU_ASSIGN_OR_RETURN(std::string tokenizer,
                          DummyTokenizerJson(config.text.vocab_size, config.generation.eos_token_ids.front(),
                                             config.multimodal->image_token_index));
  MINERU_RETURN_IF_ERROR(WriteBytes(out_dir / "tokenizer.json",
                                    {reinterpret_cast<const uint8_t*>(tokenizer.data()), tokenizer.size()}));
  MINERU_ASSIGN_OR_RETURN(MappedRegion weights, GenerateDummySafetensors(config, dtype, seed));
  return WriteBytes(out_dir / "model.safetensors", weights.bytes());
}

}  // namespace mineru::engine
