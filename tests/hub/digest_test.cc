#include "hub/digest.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <unistd.h>

#include <string>

namespace mineru::hub {
namespace {

std::string DigestOf(DigestKind kind, const std::string& data, size_t chunk) {
  auto d = FileDigest::Create(kind, data.size());
  EXPECT_TRUE(d.ok());
  for (size_t i = 0; i < data.size(); i += chunk) {
    d->Update(std::span<const char>(data.data() + i, std::min(chunk, data.size() - i)));
  }
  return d->Finish();
}

// Published values: FIPS 180-2's "abc" example, and what `git hash-object` prints for a file holding
// "hello\n" and for an empty file.
TEST(DigestTest, Sha256MatchesTheStandardsExample) {
  EXPECT_EQ(DigestOf(DigestKind::kSha256, "abc", 1),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(DigestTest, GitBlobIdCoversTheHeaderWithTheSize) {
  EXPECT_EQ(DigestOf(DigestKind::kGitBlobSha1, "hello\n", 2), "ce013625030ba8dba906f756967f9e9ca394464a");
  EXPECT_EQ(DigestOf(DigestKind::kGitBlobSha1, "", 1), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

TEST(DigestTest, ChunkingDoesNotChangeTheDigest) {
  std::string data;
  for (int i = 0; i < 100'000; ++i) data += static_cast<char>(i * 7919 % 251);
  const std::string whole = DigestOf(DigestKind::kSha256, data, data.size());
  EXPECT_EQ(DigestOf(DigestKind::kSha256, data, 1), whole);
  EXPECT_EQ(DigestOf(DigestKind::kSha256, data, 4099), whole);
  data[54'321] ^= 1;
  EXPECT_NE(DigestOf(DigestKind::kSha256, data, 4099), whole) << "one flipped bit changes it";
}

TEST(DigestTest, UpdateFromFileReadsThePrefixAndReportsAShortFile) {
  char path[] = "/tmp/minerud-digest-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::unlink(path);
  const std::string data(3 << 20, 'x');  // several reads of the 1 MiB buffer
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  auto d = FileDigest::Create(DigestKind::kSha256, data.size());
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(UpdateFromFile(*d, fd, 1'000'000).ok());
  d->Update(std::span<const char>(data.data() + 1'000'000, data.size() - 1'000'000));
  EXPECT_EQ(d->Finish(), DigestOf(DigestKind::kSha256, data, data.size()));

  auto longer = FileDigest::Create(DigestKind::kSha256, 0);
  ASSERT_TRUE(longer.ok());
  const Status s = UpdateFromFile(*longer, fd, data.size() + 1);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  ::close(fd);
}

}  // namespace
}  // namespace mineru::hub
