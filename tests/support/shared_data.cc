#include "tests/support/shared_data.h"

#include <cstdlib>
#include <string>

namespace mineru::testing {
namespace {

std::optional<std::filesystem::path> EnvPath(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || v[0] == '\0') return std::nullopt;
  return std::filesystem::path(v);
}

}  // namespace

std::filesystem::path SourceDir() { return MINERU_SOURCE_DIR; }

std::optional<std::filesystem::path> SharedDir() {
  std::error_code ec;
  if (auto env = EnvPath("MINERU_SHARED_DIR")) {
    return std::filesystem::is_directory(*env, ec) ? env : std::nullopt;
  }
  auto candidate = SourceDir().parent_path() / "shared";
  if (std::filesystem::is_directory(candidate / "golden", ec)) return candidate;
  return std::nullopt;
}

std::optional<std::filesystem::path> QwenVocabularyPath() {
  std::error_code ec;
  if (auto env = EnvPath("MINERU_TOKENIZER_JSON")) {
    return std::filesystem::is_regular_file(*env, ec) ? env : std::nullopt;
  }
  std::filesystem::path cache;
  if (auto dir = EnvPath("MINERU_CACHE_DIR")) {
    cache = *dir;
  } else if (auto home = EnvPath("HOME")) {
    cache = *home / ".cache" / "minerud";
  } else {
    return std::nullopt;
  }
  auto path = cache / "tokenizer-qwen3-3.7.2" / "tokenizer.json";
  if (std::filesystem::is_regular_file(path, ec)) return path;
  return std::nullopt;
}

bool ReferenceDataRequired() {
  const char* v = std::getenv("MINERU_REQUIRE_SHARED");
  return v != nullptr && std::string(v) == "1";
}

}  // namespace mineru::testing
