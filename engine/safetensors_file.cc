#include "engine/safetensors_file.h"


#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/torch_status.h"

namespace mineru::engine {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100ull << 20;  // the format's own limit is 100 MB
constexpr uint64_t kMaxRank = 8;

Result<StorageDtype> ParseDtype(const std::string& s) {
  if (s == "F32") return StorageDtype::kF32;
  if (s == "F16") return StorageDtype::kF16;
  if (s == "BF16") return StorageDtype::kBF16;
  if (s == "I64") return StorageDtype::kI64;
  if (s == "I32") return StorageDtype::kI32;
  if (s == "U8") return StorageDtype::kU8;
  return InvalidArgument("unknown dtype \"" + s + "\"");
}

bool MulOverflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

std::string_view StorageDtypeName(StorageDtype dtype) {
  switch (dtype) {
    case StorageDtype::kF32: return "F32";
    case StorageDtype::kF16: return "F16";
    case StorageDtype::kBF16: return "BF16";
    case StorageDtype::kI64: return "I64";
    case StorageDtype::kI32: return "I32";
    case StorageDtype::kU8: return "U8";
  }
  return "?";
}

uint64_t StorageDtypeSize(StorageDtype dtype) {
  switch (dtype) {
    case StorageDtype::kF32: return 4;
    case StorageDtype::kF16: return 2;
    case StorageDtype::kBF16: return 2;
    case StorageDtype::kI64: return 8;
    case StorageDtype::kI32: return 4;
    case StorageDtype::kU8: return 1;
  }
  return 1;
}

at::ScalarType StorageDtypeToScalarType(StorageDtype dtype) {
  switch (dtype) {
    case StorageDtype::kF32: return at::kFloat;
    case StorageDtype::kF16: return at::kHalf;
    case StorageDtype::kBF16: return at::kBFloat16;
    case StorageDtype::kI64: return at::kLong;
    case StorageDtype::kI32: return at::kInt;
    case StorageDtype::kU8: return at::kByte;
  }
  return at::kFloat;
}

Result<std::vector<TensorEntry>> ParseSafetensorsHeader(std::span<const uint8_t> file,
                                                        uint64_t file_size_bytes) {
  if (file_size_bytes < 8 || file.size() < 8) {
    return DataLoss("file is " + std::to_string(file_size_bytes) + " bytes, too short for a safetensors header");
  }
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | file[i];
  if (header_len > kMaxHeaderBytes) {
    return DataLoss("header length " + std::to_string(header_len) + " exceeds the 100 MB limit");
  }
  if (header_len > file_size_bytes - 8 || header_len > file.size() - 8) {
    return DataLoss("header length " + std::to_string(header_len) + " runs past the end of the " +
                    std::to_string(file_size_bytes) + "-byte file (truncated?)");
  }
  const uint64_t data_start = 8 + header_len;
  const uint64_t data_size = file_size_bytes - data_start;
  nlohmann::json header = nlohmann::json::parse(file.begin() + 8, file.begin() + data_start, nullptr,
                                                /*allow_exceptions=*/false);
  if (header.is_discarded()) return DataLoss("header is not valid JSON");
  if (!header.is_object()) return DataLoss("header is not a JSON object");

  std::vector<TensorEntry> entries;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    if (name == "__metadata__") {
      if (!it->is_object()) return DataLoss("__metadata__ is not an object");
      continue;
    }
    const auto fail = [&](const std::string& what) { return DataLoss("tensor \"" + name + "\": " + what); };
    const nlohmann::json& v = *it;
    if (!v.is_object()) return fail("entry is not an object");
    auto dt = v.find("dtype");
    auto sh = v.find("shape");
    auto off = v.find("data_offsets");
    if (dt == v.end() || !dt->is_string()) return fail("missing or non-string \"dtype\"");
    if (sh == v.end() || !sh->is_array()) return fail("missing or non-array \"shape\"");
    if (off == v.end() || !off->is_array() || off->size() != 2) return fail("\"data_offsets\" is not [begin, end]");
    TensorEntry e;
    e.name = name;
    auto dtype = ParseDtype(dt->get<std::string>());
    if (!dtype.ok()) return fail(dtype.status().message());
    e.dtype = *dtype;
    if (sh->size() > kMaxRank) return fail("rank " + std::to_string(sh->size()) + " is too large");
    uint64_t elements = 1;
    for (const auto& d : *sh) {
      if (!d.is_number_unsigned()) return fail("shape holds a non-integer or negative dimension");
      const uint64_t dim = d.get<uint64_t>();
      if (dim > (1ull << 40) || MulOverflows(elements, dim, &elements)) return fail("shape is too large");
      e.shape.push_back(static_cast<int64_t>(dim));
    }
    for (const auto& o : *off) {
      if (!o.is_number_unsigned()) return fail("data_offsets holds a non-integer or negative value");
    }
    const uint64_t begin = (*off)[0].get<uint64_t>();
    const uint64_t end = (*off)[1].get<uint64_t>();
    if (begin > end) return fail("data_offsets begin " + std::to_string(begin) + " > end " + std::to_string(end));
    if (end > data_size) {
      return fail("data_offsets end " + std::to_string(end) + " is past the data section (" +
                  std::to_string(data_size) + " bytes; truncated file?)");
    }
    uint64_t expected = 0;
    if (MulOverflows(elements, StorageDtypeSize(e.dtype), &expected) || expected != end - begin) {
      return fail("byte range " + std::to_string(end - begin) + " does not match shape x dtype size");
    }
    e.offset_bytes = data_start + begin;
    e.size_bytes = end - begin;
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(),
            [](const TensorEntry& a, const TensorEntry& b) { return a.offset_bytes < b.offset_bytes; });
  for (size_t i = 1; i < entries.size(); ++i) {
    const TensorEntry& prev = entries[i - 1];
    if (prev.offset_bytes + prev.size_bytes > entries[i].offset_bytes) {
      return DataLoss("tensors \"" + prev.name + "\" and \"" + entries[i].name + "\" overlap");
    }
  }
  return entries;
}

Result<SafetensorsFile> SafetensorsFile::Open(const std::string& path) {
  SafetensorsFile f;
  f.path_ = path;
  auto region = MappedRegion::MapFile(path.c_str());
  if (!region.ok()) return region.status().WithContext(path);
  f.region_ = std::move(*region);
  auto entries = ParseSafetensorsHeader(f.region_.bytes(), f.region_.size());
  if (!entries.ok()) return entries.status().WithContext(path);
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
    nlohmann::json header = nlohmann::json::object();
    std::vector<at::Tensor> contiguous;
    uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
      at::Tensor c = t.to(at::kCPU).contiguous();
      std::string dtype;
      switch (c.scalar_type()) {
        case at::kFloat: dtype = "F32"; break;
        case at::kHalf: dtype = "F16"; break;
        case at::kBFloat16: dtype = "BF16"; break;
        case at::kLong: dtype = "I64"; break;
        default: return InvalidArgument("cannot write dtype of tensor " + name);
      }
      const uint64_t bytes = c.numel() * c.element_size();
      header[name] = {{"dtype", dtype}, {"shape", c.sizes().vec()}, {"data_offsets", {offset, offset + bytes}}};
      offset += bytes;
      contiguous.push_back(c);
    }
    std::string h = header.dump();
    while ((h.size() + 8) % 8 != 0) h.push_back(' ');
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) return ErrnoStatus(errno, "open " + path);
    uint8_t len[8];
    uint64_t n = h.size();
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(n >> (8 * i));
    out.write(reinterpret_cast<const char*>(len), 8);
    out.write(h.data(), h.size());
    for (const auto& c : contiguous) {
      out.write(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
    }
    out.close();
    if (!out) return Status(StatusCode::kIoError, "write " + path + " failed");
    return Status::Ok();
  });
}

}  // namespace mineru::engine
