#include "engine/safetensors_header.h"

#include <algorithm>
#include <nlohmann/json.hpp>

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
    case StorageDtype::kF32:
      return "F32";
    case StorageDtype::kF16:
      return "F16";
    case StorageDtype::kBF16:
      return "BF16";
    case StorageDtype::kI64:
      return "I64";
    case StorageDtype::kI32:
      return "I32";
    case StorageDtype::kU8:
      return "U8";
  }
  return "?";
}

uint64_t StorageDtypeSize(StorageDtype dtype) {
  switch (dtype) {
    case StorageDtype::kF32:
      return 4;
    case StorageDtype::kF16:
      return 2;
    case StorageDtype::kBF16:
      return 2;
    case StorageDtype::kI64:
      return 8;
    case StorageDtype::kI32:
      return 4;
    case StorageDtype::kU8:
      return 1;
  }
  return 1;
}

Result<std::vector<TensorEntry>> ParseSafetensorsHeader(std::span<const uint8_t> file,
                                                        uint64_t file_size_bytes) {
  if (file_size_bytes < 8 || file.size() < 8) {
    return DataLoss("file is " + std::to_string(file_size_bytes) +
                    " bytes, too short for a safetensors header");
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
    if (off == v.end() || !off->is_array() || off->size() != 2)
      return fail("\"data_offsets\" is not [begin, end]");
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
    if (begin > end)
      return fail("data_offsets begin " + std::to_string(begin) + " > end " + std::to_string(end));
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

std::string SerializeSafetensorsHeader(const std::vector<TensorEntry>& entries) {
  nlohmann::json header = nlohmann::json::object();
  uint64_t offset = 0;
  for (const TensorEntry& e : entries) {
    header[e.name] = {{"dtype", std::string(StorageDtypeName(e.dtype))},
                      {"shape", e.shape},
                      {"data_offsets", {offset, offset + e.size_bytes}}};
    offset += e.size_bytes;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string bytes(8, '\0');
  const uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(n >> (8 * i));  // little-endian
  return bytes + json;
}

}  // namespace mineru::engine
