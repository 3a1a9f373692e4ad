// FileDigest: the checksum a hub's tree listing gives for a file, computed incrementally while the
// file arrives. Files stored in Git LFS are listed with the SHA-256 of their content (`lfs.oid`);
// small files stored in Git itself only with their Git blob id, the SHA-1 of "blob SIZE\0" followed
// by the content. Both are checked; a file is used only once its digest matches.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "common/result.h"

namespace mineru::hub {

enum class DigestKind { kSha256, kGitBlobSha1 };

struct ExpectedDigest {
  DigestKind kind = DigestKind::kSha256;
  std::string hex;  // lower-case
};

// "sha256" or "git-sha1".
const char* DigestKindName(DigestKind kind);

class FileDigest {
 public:
  // `size_bytes` is the file's whole size (the Git blob header carries it).
  static Result<FileDigest> Create(DigestKind kind, uint64_t size_bytes);
  FileDigest(FileDigest&&) noexcept;
  FileDigest& operator=(FileDigest&&) noexcept;
  ~FileDigest();

  void Update(std::span<const char> bytes);
  // Lower-case hex of the digest. Call once.
  std::string Finish();

 private:
  struct Impl;
  explicit FileDigest(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Feeds the first `length_bytes` of the open file `fd` into `digest` (the part kept from an
// interrupted download, or a file finished earlier).
Status UpdateFromFile(FileDigest& digest, int fd, uint64_t length_bytes);

}  // namespace mineru::hub
