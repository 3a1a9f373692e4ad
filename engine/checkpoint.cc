#include "engine/checkpoint.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/model_config.h"

namespace mineru::engine {

Result<Checkpoint> Checkpoint::Open(const std::filesystem::path& dir) {
  Checkpoint c;
  c.dir_ = dir;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return NotFound(dir.string() + ": not a model folder");
  std::vector<std::string> names;
  const auto index_path = dir / "model.safetensors.index.json";
  std::map<std::string, std::string> weight_map;
  if (std::filesystem::exists(index_path, ec)) {
    MINERU_ASSIGN_OR_RETURN(std::string text, ReadTextFile(index_path));
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return InvalidArgument(index_path.string() + ": not valid JSON");
    if (!j.contains("weight_map") || !j["weight_map"].is_object()) {
      return InvalidArgument(index_path.string() + ": key \"weight_map\" is missing or not an object");
    }
    std::set<std::string> shards;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      if (!it->is_string())
        return InvalidArgument(index_path.string() + ": weight_map[\"" + it.key() + "\"] is not a file name");
      const std::string f = it->get<std::string>();
      if (f.empty() || f.find('/') != std::string::npos || f == "..") {
        return InvalidArgument(index_path.string() + ": weight_map names \"" + f +
                               "\", not a file in the folder");
      }
      shards.insert(f);
      weight_map[it.key()] = f;
    }
    names.assign(shards.begin(), shards.end());
  } else if (std::filesystem::exists(dir / "model.safetensors", ec)) {
    names.push_back("model.safetensors");
  } else {
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".safetensors") names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
  }
  if (names.empty())
    return NotFound(dir.string() + ": no *.safetensors file and no model.safetensors.index.json");
  for (const auto& n : names) {
    MINERU_ASSIGN_OR_RETURN(SafetensorsFile f, SafetensorsFile::Open((dir / n).string()));
    c.files_.push_back(std::move(f));
  }
  MINERU_RETURN_IF_ERROR(c.IndexTensors([&](size_t file, const std::string& tensor) {
    if (weight_map.empty()) return true;
    auto w = weight_map.find(tensor);
    return w != weight_map.end() && w->second == names[file];  // the index decides which shard
  }));
  for (const auto& [name, file] : weight_map) {
    if (!c.by_name_.count(name)) {
      return NotFound(index_path.string() + ": tensor \"" + name + "\" is not in " + file);
    }
  }
  return c;
}

Result<Checkpoint> Checkpoint::FromFiles(const std::filesystem::path& label,
                                         std::vector<SafetensorsFile> files) {
  Checkpoint c;
  c.dir_ = label;
  c.files_ = std::move(files);
  MINERU_RETURN_IF_ERROR(c.IndexTensors([](size_t, const std::string&) { return true; }));
  return c;
}

Status Checkpoint::IndexTensors(const std::function<bool(size_t file, const std::string& tensor)>& counted) {
  for (size_t i = 0; i < files_.size(); ++i) {
    for (const auto& e : files_[i].entries()) {
      if (!counted(i, e.name)) continue;
      if (!by_name_.emplace(e.name, std::make_pair(i, &e)).second) {
        return InvalidArgument(dir_.string() + ": tensor \"" + e.name + "\" appears in two files");
      }
    }
  }
  return Status::Ok();
}

Checkpoint::Located Checkpoint::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return {};
  return {&files_[it->second.first], it->second.second};
}

Result<at::Tensor> Checkpoint::View(const std::string& name) const {
  Located l = Find(name);
  if (!l.file) return NotFound(dir_.string() + ": tensor \"" + name + "\" is missing");
  return l.file->View(*l.entry);
}

}  // namespace mineru::engine
