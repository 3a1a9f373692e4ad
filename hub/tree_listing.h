// What a Hugging Face-style hub says about a model repository: its files, their sizes and checksums,
// from the tree listing (GET ENDPOINT/api/models/OWNER/NAME/tree/REVISION?recursive=true), and where
// each file is downloaded from (ENDPOINT/OWNER/NAME/resolve/REVISION/PATH). Everything in a listing
// comes from the network and is checked here: a path that would leave the model folder ("..", a
// leading '/', an empty part, a control character), a missing or malformed checksum, a duplicate
// path and an absurd size are refused, so nothing downstream writes outside its folder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "hub/digest.h"

namespace mineru::hub {

inline constexpr char kDefaultEndpoint[] = "https://huggingface.co";
inline constexpr char kDefaultModelRepo[] = "opendatalab/MinerU2.0-2505-0.9B";

struct RemoteFile {
  std::string path;  // relative, '/'-separated
  uint64_t size_bytes = 0;
  ExpectedDigest digest;  // sha256 for LFS files, the Git blob id for the others
};

// "OWNER/NAME": letters, digits, '-', '_', '.'; neither part empty nor starting with '.'.
Status CheckRepoId(std::string_view repo);
// A revision (branch, tag or commit): letters, digits, '-', '_', '.', no "..".
Status CheckRevision(std::string_view revision);
// A file path from a listing: relative, parts not empty, ".", ".." nor containing control characters.
Status CheckRelativePath(std::string_view path);

// The files of a listing (directories are skipped), in the listing's order.
Result<std::vector<RemoteFile>> ParseTreeListing(std::string_view json_text);

// URLs. `endpoint` without a trailing '/'; path parts are percent-encoded.
std::string TreeUrl(std::string_view endpoint, std::string_view repo, std::string_view revision);
std::string FileUrl(std::string_view endpoint, std::string_view repo, std::string_view revision,
                    std::string_view path);
// Percent-encodes all but RFC 3986's unreserved characters (and '/' when `keep_slash`).
std::string PercentEncode(std::string_view text, bool keep_slash);

}  // namespace mineru::hub
