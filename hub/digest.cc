#include "hub/digest.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <vector>

#include "common/syscall.h"

namespace mineru::hub {

struct FileDigest::Impl {
  EVP_MD_CTX* ctx = nullptr;
  ~Impl() { EVP_MD_CTX_free(ctx); }
};

const char* DigestKindName(DigestKind kind) { return kind == DigestKind::kSha256 ? "sha256" : "git-sha1"; }

FileDigest::FileDigest(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FileDigest::FileDigest(FileDigest&&) noexcept = default;
FileDigest& FileDigest::operator=(FileDigest&&) noexcept = default;
FileDigest::~FileDigest() = default;

Result<FileDigest> FileDigest::Create(DigestKind kind, uint64_t size_bytes) {
  auto impl = std::make_unique<Impl>();
  impl->ctx = EVP_MD_CTX_new();
  const EVP_MD* md = kind == DigestKind::kSha256 ? EVP_sha256() : EVP_sha1();
  if (impl->ctx == nullptr || EVP_DigestInit_ex(impl->ctx, md, nullptr) != 1) {
    return Status(StatusCode::kInternal, std::string("cannot start a ") + DigestKindName(kind) + " digest");
  }
  FileDigest digest(std::move(impl));
  if (kind == DigestKind::kGitBlobSha1) {
    const std::string header = "blob " + std::to_string(size_bytes);
    digest.Update(std::span<const char>(header.data(), header.size() + 1));  // with its '\0'
  }
  return digest;
}

void FileDigest::Update(std::span<const char> bytes) {
  EVP_DigestUpdate(impl_->ctx, bytes.data(), bytes.size());
}

std::string FileDigest::Finish() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(impl_->ctx, md, &length);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[md[i] >> 4];
    hex += kHex[md[i] & 15];
  }
  return hex;
}

Status UpdateFromFile(FileDigest& digest, int fd, uint64_t length_bytes) {
  std::vector<char> buffer(1 << 20);
  uint64_t offset = 0;
  while (offset < length_bytes) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), length_bytes - offset));
    const ssize_t n =
        RetryEintr([&] { return ::pread(fd, buffer.data(), want, static_cast<off_t>(offset)); });
    if (n < 0) return ErrnoStatus(errno, "read");
    if (n == 0) return DataLoss("the file ends at byte " + std::to_string(offset));
    digest.Update(std::span<const char>(buffer.data(), static_cast<size_t>(n)));
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

}  // namespace mineru::hub
