#include "hub/tree_listing.h"

#include <gtest/gtest.h>

#include <string>

namespace mineru::hub {
namespace {

const std::string kSha256(64, 'a');
const std::string kSha1(40, 'b');

std::string Entry(const std::string& path, const std::string& extra = "") {
  return R"({"type":"file","path":")" + path + R"(","size":5,"oid":")" + kSha1 + "\"" + extra + "}";
}

TEST(TreeListingTest, LfsFilesCarryTheirSha256AndOthersTheirGitBlobId) {
  const std::string listing = "[" + Entry("config.json") + R"(,{"type":"directory","path":"vision","oid":")" +
                              kSha1 + R"(","size":0},)" +
                              Entry("vision/model.safetensors",
                                    R"(,"lfs":{"oid":")" + kSha256 + R"(","size":1234,"pointerSize":134})") +
                              "]";
  auto files = ParseTreeListing(listing);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 2u) << "the directory is not a file";
  EXPECT_EQ((*files)[0].path, "config.json");
  EXPECT_EQ((*files)[0].digest.kind, DigestKind::kGitBlobSha1);
  EXPECT_EQ((*files)[0].digest.hex, kSha1);
  EXPECT_EQ((*files)[0].size_bytes, 5u);
  EXPECT_EQ((*files)[1].path, "vision/model.safetensors");
  EXPECT_EQ((*files)[1].digest.kind, DigestKind::kSha256);
  EXPECT_EQ((*files)[1].digest.hex, kSha256);
  EXPECT_EQ((*files)[1].size_bytes, 1234u) << "the LFS object's size, not the pointer's";
}

TEST(TreeListingTest, TheLfsPointerFormOfTheOidIsAccepted) {
  auto files =
      ParseTreeListing("[" + Entry("m.safetensors", R"(,"lfs":{"oid":"sha256:)" + kSha256 + R"("})") + "]");
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ((*files)[0].digest.hex, kSha256);
}

TEST(TreeListingTest, PathsThatLeaveTheFolderAreRefused) {
  for (const std::string path :
       {"../escape", "a/../../b", "/etc/passwd", "a//b", "./a", "a/.", "", "a\\\\b", "a\\u0001b"}) {
    auto files = ParseTreeListing("[" + Entry(path) + "]");
    EXPECT_FALSE(files.ok()) << "accepted '" << path << "'";
    if (!files.ok()) {
      EXPECT_EQ(files.status().code(), StatusCode::kInvalidArgument);
    }
  }
  EXPECT_TRUE(ParseTreeListing("[" + Entry(".gitattributes") + "]").ok()) << "a dot file is a file";
}

TEST(TreeListingTest, MalformedListingsAreRefused) {
  const std::string bad[] = {
      "not json",
      "{}",
      "[]",
      "[1]",
      R"([{"type":"symlink","path":"a","size":1,"oid":")" + kSha1 + "\"}]",
      R"([{"type":"file","path":"a","oid":")" + kSha1 + "\"}]",                     // no size
      R"([{"type":"file","path":"a","size":-1,"oid":")" + kSha1 + "\"}]",           // negative size
      R"([{"type":"file","path":"a","size":1,"oid":"xyz"}])",                       // not a Git blob id
      "[" + Entry("a", R"(,"lfs":{"oid":"123"})") + "]",                            // not a sha256
      "[" + Entry("a", R"(,"lfs":{"oid":")" + std::string(64, 'A') + "\"}") + "]",  // upper case
      "[" + Entry("a") + "," + Entry("a") + "]",                                    // twice
      R"([{"type":"file","path":"a","size":2000000000000,"oid":")" + kSha1 + "\"}]",
  };
  for (const std::string& listing : bad) {
    EXPECT_FALSE(ParseTreeListing(listing).ok()) << listing;
  }
}

TEST(TreeListingTest, RepoIdsAndRevisionsAreChecked) {
  EXPECT_TRUE(CheckRepoId("opendatalab/MinerU2.0-2505-0.9B").ok());
  for (const char* bad : {"MinerU", "a/b/c", "/b", "a/", "../b", "a/..", "a b/c", "a/b?x=1"}) {
    EXPECT_FALSE(CheckRepoId(bad).ok()) << bad;
  }
  EXPECT_TRUE(CheckRevision("main").ok());
  EXPECT_TRUE(CheckRevision("0123abcd").ok());
  for (const char* bad : {"", "a/b", "..", "x..y", "a b"}) EXPECT_FALSE(CheckRevision(bad).ok()) << bad;
}

TEST(TreeListingTest, UrlsFollowTheHubLayoutWithPartsEncoded) {
  EXPECT_EQ(TreeUrl("https://hub.example", "org/model", "main"),
            "https://hub.example/api/models/org/model/tree/main?recursive=true");
  EXPECT_EQ(FileUrl("http://127.0.0.1:8080", "org/model", "main", "vision/a b+c%.json"),
            "http://127.0.0.1:8080/org/model/resolve/main/vision/a%20b%2Bc%25.json");
}

}  // namespace
}  // namespace mineru::hub
