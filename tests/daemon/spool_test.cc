#include "daemon/spool.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/daemon/temp_dir.h"

namespace mineru::daemon {
namespace {

using mineru::testing::TempDir;

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

JobInfo MakeInfo(JobId id, uid_t uid) {
  JobInfo info;
  info.id = id;
  info.uid = uid;
  info.name = "paper.pdf";
  info.document_bytes = 5;
  info.submitted_ms = 1234;
  return info;
}

TEST(SpoolTest, AcceptThenLoadAfterReopen) {
  TempDir dir;
  {
    auto spool = Spool::Open(dir.path() + "/state");
    ASSERT_TRUE(spool.ok()) << spool.status().ToString();
    auto id = spool->AllocateId();
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(*id, 1u);
    ASSERT_TRUE(spool->Accept(MakeInfo(*id, 1000), Bytes("%PDF-")).ok());
  }
  auto spool = Spool::Open(dir.path() + "/state");
  ASSERT_TRUE(spool.ok());
  auto jobs = spool->LoadJobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].id, 1u);
  EXPECT_EQ((*jobs)[0].uid, 1000u);
  EXPECT_EQ((*jobs)[0].name, "paper.pdf");
  EXPECT_EQ((*jobs)[0].state, JobState::kQueued);
  auto doc = spool->MapDocument(1);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(doc->data()), doc->size()), "%PDF-");
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() + "/state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(SpoolTest, IdsAreNeverReusedAcrossReopenEvenAfterRemoval) {
  TempDir dir;
  JobId last = 0;
  {
    auto spool = Spool::Open(dir.path());
    ASSERT_TRUE(spool.ok());
    for (int i = 0; i < 3; ++i) {
      auto id = spool->AllocateId();
      ASSERT_TRUE(id.ok());
      EXPECT_GT(*id, last);
      last = *id;
      ASSERT_TRUE(spool->Accept(MakeInfo(*id, 1), Bytes("x")).ok());
    }
    ASSERT_TRUE(spool->Remove(last).ok());
  }
  auto spool = Spool::Open(dir.path());
  ASSERT_TRUE(spool.ok());
  auto id = spool->AllocateId();
  ASSERT_TRUE(id.ok());
  EXPECT_GT(*id, last);
}

TEST(SpoolTest, HalfWrittenJobIsRemovedAtOpen) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() + "/jobs/.incoming-7");
  std::ofstream(dir.path() + "/jobs/.incoming-7/document") << "partial";
  auto spool = Spool::Open(dir.path());
  ASSERT_TRUE(spool.ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/jobs/.incoming-7"));
  auto jobs = spool->LoadJobs();
  ASSERT_TRUE(jobs.ok());
  EXPECT_TRUE(jobs->empty());
  // An id seen on disk is never handed out again.
  std::filesystem::create_directories(dir.path() + "/jobs/41");
  auto reopened = Spool::Open(dir.path());
  ASSERT_TRUE(reopened.ok());
  EXPECT_GE(*reopened->AllocateId(), 42u);
}

TEST(SpoolTest, CorruptRecordBecomesFailedJobForRootOnly) {
  TempDir dir;
  auto spool = Spool::Open(dir.path());
  ASSERT_TRUE(spool.ok());
  ASSERT_TRUE(spool->Accept(MakeInfo(3, 1000), Bytes("x")).ok());
  std::ofstream(dir.path() + "/jobs/3/job.json", std::ios::trunc) << "{\"id\": 3, \"uid\":";
  auto jobs = spool->LoadJobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].state, JobState::kFailed);
  EXPECT_EQ((*jobs)[0].error_code, StatusCode::kDataLoss);
  EXPECT_EQ((*jobs)[0].uid, 0u);
}

TEST(SpoolTest, ResultsRoundTripAndDropPayload) {
  TempDir dir;
  auto spool = Spool::Open(dir.path());
  ASSERT_TRUE(spool.ok());
  ASSERT_TRUE(spool->Accept(MakeInfo(1, 1), Bytes("doc")).ok());
  std::vector<OutputFile> files = {
      {"a.md", "# Title\n"}, {"images/x.jpg", std::string("\0\xff\x01", 3)}, {"empty.json", ""}};
  ASSERT_TRUE(spool->SaveResults(1, files).ok());
  EXPECT_TRUE(spool->HasResults(1));
  auto loaded = spool->LoadResults(1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_EQ(loaded->size(), 3u);
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ((*loaded)[i].path, files[i].path);
    EXPECT_EQ((*loaded)[i].data, files[i].data);
  }
  ASSERT_TRUE(spool->DropPayload(1).ok());
  EXPECT_FALSE(spool->HasResults(1));
  EXPECT_FALSE(spool->MapDocument(1).ok());
  EXPECT_EQ(spool->LoadJobs()->size(), 1u);
}

TEST(SpoolTest, TruncatedResultsAreDataLoss) {
  TempDir dir;
  auto spool = Spool::Open(dir.path());
  ASSERT_TRUE(spool.ok());
  ASSERT_TRUE(spool->Accept(MakeInfo(1, 1), Bytes("doc")).ok());
  ASSERT_TRUE(spool->SaveResults(1, {{"a.md", std::string(100, 'x')}}).ok());
  std::filesystem::resize_file(dir.path() + "/jobs/1/results", 50);
  auto loaded = spool->LoadResults(1);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kDataLoss);
}

TEST(SpoolTest, WriteFileDurablyReplacesAtomically) {
  TempDir dir;
  std::string path = dir.path() + "/f";
  ASSERT_TRUE(WriteFileDurably(path, std::string_view("one")).ok());
  ASSERT_TRUE(WriteFileDurably(path, std::string_view("two")).ok());
  EXPECT_EQ(*ReadSmallFile(path, 100), "two");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_FALSE(ReadSmallFile(path, 2).ok());
}

}  // namespace
}  // namespace mineru::daemon
