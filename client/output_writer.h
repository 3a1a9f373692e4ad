// Writing a job's result files under the user's output folder. The daemon never opens user paths;
// this does, as the user, and trusts none of the names it got: each path must be relative, without
// "." or ".." parts, at most one folder deep ("images/x.jpg"), and no symlink is followed.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "mineru/client.h"

namespace mineru::ctl {

// Checks one relative result path as described above.
Status ValidateResultPath(std::string_view path);

// Creates `dir` (and parents) when missing and writes every file into it. Returns the paths written.
Result<std::vector<std::string>> WriteResultFiles(const std::string& dir,
                                                  const std::vector<client::ResultFile>& files);

}  // namespace mineru::ctl
