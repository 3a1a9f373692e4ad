// PullModel: a model repository from a Hugging Face-style hub into MODELS_DIR/NAME, where minerud's
// `model_dir = NAME` finds it. The folder appears whole or not at all:
//   MODELS_DIR/.pull-NAME.lock      flock: one pull of NAME at a time
//   MODELS_DIR/.pull-NAME.partial/  files being downloaded (kept between runs, to resume)
//   MODELS_DIR/.pull-NAME/          files whose size and digest matched the listing
//   MODELS_DIR/NAME                 the staging folder renamed into place once every file is in it
// Names starting with '.' are never model names (common/config.h), so the daemon cannot be pointed at
// a folder in progress. With `replace`, an existing NAME is swapped for the new folder in one
// rename (RENAME_EXCHANGE) and the old one removed afterwards.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "common/result.h"
#include "hub/http_session.h"
#include "hub/tree_listing.h"

namespace mineru::hub {

struct PullProgress {
  std::string path;  // the file in hand
  size_t file_index = 0;
  size_t num_files = 0;
  uint64_t file_done_bytes = 0;
  uint64_t file_size_bytes = 0;
  uint64_t done_bytes = 0;  // all files
  uint64_t total_bytes = 0;
  bool file_verified = false;  // the file in hand is complete and matched its checksum
};

struct PullOptions {
  std::string endpoint = kDefaultEndpoint;  // without a trailing '/'
  std::string repo = kDefaultModelRepo;
  std::string revision = "main";
  std::filesystem::path models_dir;
  std::string name;  // empty: the repository's name (after the '/')
  bool replace = false;
  int retries = 3;
  int64_t retry_delay_ms = 1000;
  std::function<void(const PullProgress&)> on_progress;
};

struct PullResult {
  std::filesystem::path model_dir;
  bool already_present = false;  // NAME existed and `replace` was not asked for: nothing fetched
  size_t num_files = 0;
  uint64_t total_bytes = 0;
  uint64_t downloaded_bytes = 0;
  uint64_t resumed_bytes = 0;  // kept from an interrupted earlier run
};

// The name a repository is stored under by default: "opendatalab/MinerU2.0-2505-0.9B" ->
// "MinerU2.0-2505-0.9B".
std::string DefaultModelName(const std::string& repo);

Result<PullResult> PullModel(HttpSession& http, const PullOptions& options);

}  // namespace mineru::hub
