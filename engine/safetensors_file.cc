#include "engine/safetensors_file.h"

#include <cstring>
#include <fstream>

#include "engine/torch_status.h"

namespace mineru::engine {

at::ScalarType StorageDtypeToScalarType(StorageDtype dtype) {
  switch (dtype) {
    case StorageDtype::kF32:
      return at::kFloat;
    case StorageDtype::kF16:
      return at::kHalf;
    case StorageDtype::kBF16:
      return at::kBFloat16;
    case StorageDtype::kI64:
      return at::kLong;
    case StorageDtype::kI32:
      return at::kInt;
    case StorageDtype::kU8:
      return at::kByte;
  }
  return at::kFloat;
}

Result<SafetensorsFile> SafetensorsFile::Open(const std::string& path) {
  auto region = MappedRegion::MapFile(path.c_str());
  if (!region.ok()) return region.status().WithContext(path);
  return FromRegion(path, std::move(*region));
}

Result<SafetensorsFile> SafetensorsFile::FromRegion(const std::string& name, MappedRegion region) {
  SafetensorsFile f;
  f.path_ = name;
  f.region_ = std::move(region);
  auto entries = ParseSafetensorsHeader(f.region_.bytes(), f.region_.size());
  if (!entries.ok()) return entries.status().WithContext(name);
  f.entries_ = std::move(*entries);
  for (size_t i = 0; i < f.entries_.size(); ++i) f.by_name_[f.entries_[i].name] = i;
  return f;
}

const TensorEntry* SafetensorsFile::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

std::span<const uint8_t> SafetensorsFile::Bytes(const TensorEntry& entry) const {
  return region_.bytes().subspan(entry.offset_bytes, entry.size_bytes);
}

Result<at::Tensor> SafetensorsFile::View(const TensorEntry& entry) const {
  return CatchTorch("safetensors view of " + entry.name, [&]() -> Result<at::Tensor> {
    void* data = const_cast<uint8_t*>(region_.data() + entry.offset_bytes);
    const at::ScalarType type = StorageDtypeToScalarType(entry.dtype);
    if (entry.size_bytes == 0) return at::empty(entry.shape, at::TensorOptions().dtype(type));
    if (reinterpret_cast<uintptr_t>(data) % StorageDtypeSize(entry.dtype) != 0) {
      // Misaligned data (legal in the format): copy it out.
      at::Tensor t = at::empty(entry.shape, at::TensorOptions().dtype(type));
      std::memcpy(t.data_ptr(), data, entry.size_bytes);
      return t;
    }
    return at::from_blob(data, entry.shape, at::TensorOptions().dtype(type));
  });
}

Status WriteSafetensors(const std::string& path,
                        const std::vector<std::pair<std::string, at::Tensor>>& tensors) {
  return CatchTorch("writing " + path, [&]() -> Status {
    std::vector<TensorEntry> entries;
    std::vector<at::Tensor> contiguous;
    for (const auto& [name, t] : tensors) {
      at::Tensor c = t.to(at::kCPU).contiguous();
      TensorEntry e;
      e.name = name;
      switch (c.scalar_type()) {
        case at::kFloat:
          e.dtype = StorageDtype::kF32;
          break;
        case at::kHalf:
          e.dtype = StorageDtype::kF16;
          break;
        case at::kBFloat16:
          e.dtype = StorageDtype::kBF16;
          break;
        case at::kLong:
          e.dtype = StorageDtype::kI64;
          break;
        default:
          return InvalidArgument("cannot write dtype of tensor " + name);
      }
      e.shape = c.sizes().vec();
      e.size_bytes = c.numel() * c.element_size();
      entries.push_back(std::move(e));
      contiguous.push_back(c);
    }
    const std::string header = SerializeSafetensorsHeader(entries);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) return ErrnoStatus(errno, "open " + path);
    out.write(header.data(), header.size());
    for (const auto& c : contiguous) {
      out.write(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
    }
    out.close();
    if (!out) return Status(StatusCode::kIoError, "write " + path + " failed");
    return Status::Ok();
  });
}

}  // namespace mineru::engine
