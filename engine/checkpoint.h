// Checkpoint: the safetensors files of one model folder (a single model.safetensors, or shards listed
// by model.safetensors.index.json), with one name -> tensor map across them. Opening maps the files
// and validates every header; no tensor bytes are read.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/safetensors_file.h"

namespace mineru::engine {

class Checkpoint {
 public:
  static Result<Checkpoint> Open(const std::filesystem::path& dir);
  // Files already open (e.g. generated in memory); `label` stands for the folder in messages.
  static Result<Checkpoint> FromFiles(const std::filesystem::path& label, std::vector<SafetensorsFile> files);

  struct Located {
    const SafetensorsFile* file = nullptr;
    const TensorEntry* entry = nullptr;
  };
  // nullopt-like: file == nullptr when absent.
  Located Find(const std::string& name) const;
  bool Has(const std::string& name) const { return Find(name).file != nullptr; }
  // A read-only view of the stored bytes (stored dtype). NotFound names the tensor.
  Result<at::Tensor> View(const std::string& name) const;

  const std::vector<SafetensorsFile>& files() const { return files_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  // Every tensor of every file that `counted` keeps, by name; a name in two files is an error.
  Status IndexTensors(const std::function<bool(size_t file, const std::string& tensor)>& counted);
  std::filesystem::path dir_;
  std::vector<SafetensorsFile> files_;
  std::map<std::string, std::pair<size_t, const TensorEntry*>> by_name_;
};

}  // namespace mineru::engine
