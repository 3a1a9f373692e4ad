// Documents: DocumentBuffer (client) and SealedDocument (daemon). A sealed memfd of the declared size
// is mapped read-only; every other kind of fd is refused and closed. Also over a real socket, with
// the fds of a submit frame that carries too many or too few.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "shm/channel.h"
#include "shm/document_buffer.h"
#include "shm/fd_passing.h"
#include "shm/sealed_document.h"
#include "tests/shm/fd_guard.h"

namespace mineru::shm {
namespace {

using DocumentTest = testing::FdLeakTest;
constexpr uint64_t kMax = 1ull << 30;

UniqueFd SealedMemfd(uint64_t size, int seals) {
  auto fd = CreateMemfd("test");
  EXPECT_TRUE(fd.ok());
  EXPECT_EQ(ftruncate(fd->get(), static_cast<off_t>(size)), 0);
  if (seals != 0) {
    EXPECT_EQ(fcntl(fd->get(), F_ADD_SEALS, seals), 0);
  }
  return std::move(*fd);
}

TEST_F(DocumentTest, ZeroCopyRoundTrip) {
  auto buffer = DocumentBuffer::Create(10000);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  for (size_t i = 0; i < 10000; ++i) buffer->data()[i] = static_cast<uint8_t>(i % 251);
  auto fd = buffer->Seal();
  ASSERT_TRUE(fd.ok()) << fd.status().ToString();
  EXPECT_TRUE(buffer->data().empty());
  EXPECT_FALSE(buffer->Seal().ok());
  auto doc = SealedDocument::Adopt(std::move(*fd), 10000, kMax);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  ASSERT_EQ(doc->size(), 10000u);
  for (size_t i = 0; i < 10000; ++i) ASSERT_EQ(doc->bytes()[i], i % 251);
}

TEST_F(DocumentTest, CopyOfRoundTrip) {
  std::vector<uint8_t> bytes(300'000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 13 + (i >> 9));
  auto buffer = DocumentBuffer::CopyOf(bytes);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  EXPECT_EQ(buffer->size(), bytes.size());
  EXPECT_TRUE(buffer->data().empty());
  auto fd = buffer->Seal();
  ASSERT_TRUE(fd.ok());
  auto doc = SealedDocument::Adopt(std::move(*fd), bytes.size(), kMax);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), doc->bytes().begin(), doc->bytes().end()));
  EXPECT_FALSE(DocumentBuffer::CopyOf({}).ok());
}

TEST_F(DocumentTest, SealedMemfdCannotBeChangedByItsCreator) {
  auto buffer = DocumentBuffer::CopyOf(std::vector<uint8_t>(8192, 7));
  ASSERT_TRUE(buffer.ok());
  auto fd = buffer->Seal();
  ASSERT_TRUE(fd.ok());
  EXPECT_NE(ftruncate(fd->get(), 10), 0);
  EXPECT_NE(ftruncate(fd->get(), 1 << 20), 0);
  const char byte = 'x';
  EXPECT_LT(pwrite(fd->get(), &byte, 1, 0), 0);
  void* writable = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd->get(), 0);
  EXPECT_EQ(writable, MAP_FAILED);
  if (writable != MAP_FAILED) munmap(writable, 8192);
}

TEST_F(DocumentTest, SizeMismatchZeroAndOverLimit) {
  EXPECT_EQ(SealedDocument::Adopt(SealedMemfd(4096, RequiredDocumentSeals()), 4095, kMax).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(SealedDocument::Adopt(SealedMemfd(4096, RequiredDocumentSeals()), 4097, kMax).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(SealedDocument::Adopt(SealedMemfd(4096, RequiredDocumentSeals()), 0, kMax).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(SealedDocument::Adopt(SealedMemfd(4096, RequiredDocumentSeals()), 4096, 4095).status().code(),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(SealedDocument::Adopt(UniqueFd(), 4096, kMax).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(DocumentBuffer::Create(0).ok());
}

TEST_F(DocumentTest, UnsealedAndPartlySealedMemfdsAreRefused) {
  for (int seals : {0, F_SEAL_SHRINK | F_SEAL_GROW, F_SEAL_WRITE, F_SEAL_SHRINK | F_SEAL_WRITE,
                    F_SEAL_GROW | F_SEAL_WRITE}) {
    SCOPED_TRACE(seals);
    auto r = SealedDocument::Adopt(SealedMemfd(4096, seals), 4096, kMax);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("sealed"), std::string::npos) << r.status().message();
  }
}

TEST_F(DocumentTest, OtherKindsOfFdAreRefused) {
  auto expect_refused = [](UniqueFd fd, const char* what) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(fd.valid());
    auto r = SealedDocument::Adopt(std::move(fd), 4096, kMax);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  };
  auto pair = SocketPair();
  ASSERT_TRUE(pair.ok());
  expect_refused(std::move(pair->first), "socket");
  expect_refused(UniqueFd(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)), "directory");
  expect_refused(UniqueFd(open("/dev/zero", O_RDONLY | O_CLOEXEC)), "/dev/zero");
  expect_refused(UniqueFd(open("/dev/null", O_RDONLY | O_CLOEXEC)), "/dev/null");
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  close(p[1]);
  expect_refused(UniqueFd(p[0]), "pipe");
  // A regular file on disk of the right size: not a memfd, cannot be sealed.
  const auto path = std::filesystem::temp_directory_path() / ("minerud-doc-" + std::to_string(getpid()));
  UniqueFd file(open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  ASSERT_EQ(ftruncate(file.get(), 4096), 0);
  unlink(path.c_str());
  expect_refused(std::move(file), "regular file");
}

// Over a real socket: the daemon side receives a submit whose fd is each bad kind, or with the wrong
// number of fds; every refused fd is closed (FdLeakTest checks /proc/self/fd).
TEST_F(DocumentTest, SubmitFramesWithBadFdsOverASocket) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  auto& [client, daemon] = *pair;
  SubmitRequest submit;
  submit.document_bytes = 4096;
  // Unsealed memfd: the frame is fine, the document is refused.
  {
    UniqueFd unsealed = SealedMemfd(4096, 0);
    const int raw = unsealed.get();
    ASSERT_TRUE(client.Send(submit, std::span<const int>(&raw, 1)).ok());
    auto got = daemon.Receive(Deadline::InMillis(2000));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->fds.size(), 1u);
    EXPECT_FALSE(SealedDocument::Adopt(std::move(got->fds[0]), 4096, kMax).ok());
  }
  // Two fds where one is required: the frame is refused and both fds closed.
  {
    UniqueFd a = SealedMemfd(4096, RequiredDocumentSeals());
    UniqueFd b = SealedMemfd(4096, RequiredDocumentSeals());
    const int raw[2] = {a.get(), b.get()};
    ASSERT_TRUE(client.Send(submit, std::span<const int>(raw, 2)).ok());
    auto got = daemon.Receive(Deadline::InMillis(2000));
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST_F(DocumentTest, SubmitWithoutItsFdIsRefused) {
  auto pair = Channel::Pair();
  ASSERT_TRUE(pair.ok());
  SubmitRequest submit;
  submit.document_bytes = 4096;
  ASSERT_TRUE(pair->first.Send(submit).ok());
  auto got = pair->second.Receive(Deadline::InMillis(2000));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mineru::shm
