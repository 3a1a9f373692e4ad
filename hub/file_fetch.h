// FetchFile: one file of a model repository, downloaded, resumed and verified. The bytes go to
// PARTIAL/PATH while they arrive; an earlier run's partial file is continued with a Range request
// (its bytes are hashed first, so the digest covers the whole file). Once the listed size has
// arrived and the digest matches the listing, the file is flushed to disk and renamed to
// STAGING/PATH. A digest that does not match removes the partial file and fails with kDataLoss: a
// corrupted file is never kept, neither for use nor to resume from. A file already in STAGING (an
// earlier run finished it) is checked again and kept when it still matches.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "common/result.h"
#include "hub/http_session.h"
#include "hub/tree_listing.h"

namespace mineru::hub {

struct FetchOptions {
  std::filesystem::path staging_dir;  // verified files
  std::filesystem::path partial_dir;  // files being downloaded
  int retries = 3;                    // more attempts after an interrupted transfer, each resumed
  int64_t retry_delay_ms = 1000;      // doubled after each attempt
  // Called as bytes arrive or are checked: the file's bytes done so far (out of its size).
  std::function<void(uint64_t done_bytes)> on_bytes;
};

struct FetchStats {
  uint64_t downloaded_bytes = 0;  // received over the network
  uint64_t resumed_bytes = 0;     // kept from an earlier run's partial file
  bool already_verified = false;  // an earlier run had finished it
};

Result<FetchStats> FetchFile(HttpSession& http, const std::string& url, const RemoteFile& file,
                             const FetchOptions& options);

}  // namespace mineru::hub
