#include "tests/engine/input_test_util.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace mineru::engine::testing {

Result<std::string> ReadTextFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Result<F32Tensor> ReadSafetensorsF32(const std::filesystem::path& path, const std::string& name) {
  MINERU_ASSIGN_OR_RETURN(std::string bytes, ReadTextFile(path));
  if (bytes.size() < 8) return DataLoss(path.string() + ": too short");
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  if (header_size > bytes.size() - 8) return DataLoss(path.string() + ": header size out of range");
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_size), nullptr, false);
  if (header.is_discarded() || !header.contains(name)) return NotFound(path.string() + ": no tensor " + name);
  const auto& entry = header[name];
  if (entry.value("dtype", "") != "F32") return InvalidArgument(name + " is not F32");
  F32Tensor t;
  t.shape = entry["shape"].get<std::vector<int64_t>>();
  const auto offsets = entry["data_offsets"].get<std::vector<uint64_t>>();
  const uint64_t begin = 8 + header_size + offsets[0], end = 8 + header_size + offsets[1];
  if (end > bytes.size() || begin > end || (end - begin) % 4 != 0) return DataLoss(name + ": bad offsets");
  t.values.resize((end - begin) / 4);
  std::memcpy(t.values.data(), bytes.data() + begin, end - begin);
  return t;
}

Result<nlohmann::json> ReadJsonFile(const std::filesystem::path& path) {
  MINERU_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return InvalidArgument(path.string() + ": not valid JSON");
  return j;
}

Result<std::vector<nlohmann::json>> ReadJsonLines(const std::filesystem::path& path) {
  MINERU_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return InvalidArgument(path.string() + ": a line is not valid JSON");
    lines.push_back(std::move(j));
  }
  return lines;
}

}  // namespace mineru::engine::testing
