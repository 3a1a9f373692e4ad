#include "shm/sealed_document.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <string>

namespace mineru::shm {
namespace {

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

}  // namespace

int RequiredDocumentSeals() { return F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE; }

Result<SealedDocument> SealedDocument::Adopt(UniqueFd fd, uint64_t declared_bytes, uint64_t max_bytes) {
  if (!fd) return InvalidArgument("document: no file descriptor");
  if (declared_bytes == 0) return InvalidArgument("document: declared size is 0");
  if (declared_bytes > max_bytes) {
    return ResourceExhausted("document: " + std::to_string(declared_bytes) + " bytes exceeds the limit of " +
                             std::to_string(max_bytes));
  }
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, "document: fstat");
  if (!S_ISREG(st.st_mode))
    return InvalidArgument(std::string("document: the fd is ") + FileKind(st.st_mode));
  // Only memfd/shmem files answer F_GET_SEALS; anything else (a regular file on disk) fails with EINVAL.
  const int seals = fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0) {
    if (errno == EINVAL) return InvalidArgument("document: the fd is not a memfd");
    return ErrnoStatus(errno, "document: fcntl(F_GET_SEALS)");
  }
  if ((seals & RequiredDocumentSeals()) != RequiredDocumentSeals()) {
    return InvalidArgument("document: the memfd is not sealed against shrink, grow and write");
  }
  if (static_cast<uint64_t>(st.st_size) != declared_bytes) {
    return InvalidArgument("document: the memfd holds " + std::to_string(st.st_size) + " bytes, not the " +
                           std::to_string(declared_bytes) + " declared");
  }
  MapOptions options;
  options.size_bytes = declared_bytes;
  MINERU_ASSIGN_OR_RETURN(MappedRegion mapping, MappedRegion::Map(fd.get(), options));
  return SealedDocument(std::move(fd), std::move(mapping));
}

}  // namespace mineru::shm
