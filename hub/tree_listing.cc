#include "hub/tree_listing.h"

#include <nlohmann/json.hpp>
#include <set>

namespace mineru::hub {
namespace {

using nlohmann::json;

// No file of a model repository comes near this; a listing that says more is refused.
constexpr uint64_t kMaxFileBytes = 1ull << 40;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.';
}

bool IsNamePart(std::string_view part) {
  if (part.empty() || part[0] == '.') return false;
  for (char c : part) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

bool IsHex(std::string_view s, size_t length) {
  if (s.size() != length) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<RemoteFile> ParseFileEntry(const json& e) {
  const std::string path = e.value("path", "");
  MINERU_RETURN_IF_ERROR(CheckRelativePath(path));
  const auto bad = [&](const std::string& what) {
    return InvalidArgument("listing entry " + path + ": " + what);
  };
  if (!e.contains("size") || !e["size"].is_number_unsigned()) return bad("no size");
  RemoteFile f;
  f.path = path;
  f.size_bytes = e["size"].get<uint64_t>();
  if (e.contains("lfs") && e["lfs"].is_object()) {
    const json& lfs = e["lfs"];
    const std::string oid = lfs.value("oid", "");
    // Some listings write the LFS pointer's form, "sha256:HEX".
    f.digest = {DigestKind::kSha256, oid.rfind("sha256:", 0) == 0 ? oid.substr(7) : oid};
    if (!IsHex(f.digest.hex, 64)) return bad("lfs.oid is not a sha256");
    if (lfs.contains("size") && lfs["size"].is_number_unsigned()) f.size_bytes = lfs["size"].get<uint64_t>();
  } else {
    f.digest = {DigestKind::kGitBlobSha1, e.value("oid", "")};
    if (!IsHex(f.digest.hex, 40)) return bad("oid is not a Git blob id");
  }
  if (f.size_bytes > kMaxFileBytes) return bad("size " + std::to_string(f.size_bytes) + " is too large");
  return f;
}

}  // namespace

Status CheckRepoId(std::string_view repo) {
  const size_t slash = repo.find('/');
  if (slash == std::string_view::npos || !IsNamePart(repo.substr(0, slash)) ||
      !IsNamePart(repo.substr(slash + 1))) {
    return InvalidArgument("'" + std::string(repo) +
                           "' is not a repository id (OWNER/NAME: letters, digits, '-', '_', '.')");
  }
  return Status::Ok();
}

Status CheckRevision(std::string_view revision) {
  if (!IsNamePart(revision) || revision.find("..") != std::string_view::npos) {
    return InvalidArgument("'" + std::string(revision) + "' is not a revision (a branch, tag or commit)");
  }
  return Status::Ok();
}

Status CheckRelativePath(std::string_view path) {
  const auto bad = [&](const char* why) {
    return InvalidArgument("the listing names a file '" + std::string(path) + "': " + why);
  };
  if (path.empty() || path.size() > 1024) return bad("empty or too long");
  if (path[0] == '/') return bad("an absolute path");
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return bad("a part is empty, '.' or '..'");
    start = end + 1;
  }
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f || c == '\\') return bad("a control character or a backslash");
  }
  return Status::Ok();
}

Result<std::vector<RemoteFile>> ParseTreeListing(std::string_view json_text) {
  const json listing = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!listing.is_array()) return InvalidArgument("the tree listing is not a JSON array");
  std::vector<RemoteFile> files;
  std::set<std::string> seen;
  for (const json& e : listing) {
    if (!e.is_object()) return InvalidArgument("the tree listing holds something other than objects");
    const std::string type = e.value("type", "");
    if (type == "directory") continue;
    if (type != "file") return InvalidArgument("listing entry of unknown type '" + type + "'");
    MINERU_ASSIGN_OR_RETURN(RemoteFile f, ParseFileEntry(e));
    if (!seen.insert(f.path).second) return InvalidArgument("the listing names " + f.path + " twice");
    files.push_back(std::move(f));
  }
  if (files.empty()) return InvalidArgument("the tree listing names no files");
  return files;
}

std::string PercentEncode(std::string_view text, bool keep_slash) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (IsNameChar(static_cast<char>(c)) || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string TreeUrl(std::string_view endpoint, std::string_view repo, std::string_view revision) {
  return std::string(endpoint) + "/api/models/" + std::string(repo) + "/tree/" +
         PercentEncode(revision, false) + "?recursive=true";
}

std::string FileUrl(std::string_view endpoint, std::string_view repo, std::string_view revision,
                    std::string_view path) {
  return std::string(endpoint) + "/" + std::string(repo) + "/resolve/" + PercentEncode(revision, false) +
         "/" + PercentEncode(path, true);
}

}  // namespace mineru::hub
