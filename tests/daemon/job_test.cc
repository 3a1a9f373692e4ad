#include "daemon/job.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "daemon/pipeline_types.h"

namespace mineru::daemon {
namespace {

TEST(JobTest, NameValidation) {
  EXPECT_TRUE(ValidateJobName("report 2024.pdf").ok());
  EXPECT_TRUE(ValidateJobName("Überblick.pdf").ok());
  EXPECT_FALSE(ValidateJobName("").ok());
  EXPECT_FALSE(ValidateJobName(".").ok());
  EXPECT_FALSE(ValidateJobName("..").ok());
  EXPECT_FALSE(ValidateJobName("a/b.pdf").ok());
  EXPECT_FALSE(ValidateJobName(std::string("a\0b", 3)).ok());
  EXPECT_FALSE(ValidateJobName("line\nbreak").ok());
  EXPECT_FALSE(ValidateJobName(std::string(256, 'a')).ok());
  EXPECT_TRUE(ValidateJobName(std::string(255, 'a')).ok());
}

TEST(JobTest, OutputPathValidation) {
  EXPECT_TRUE(ValidateOutputPath("doc.md").ok());
  EXPECT_TRUE(ValidateOutputPath("images/abc.jpg").ok());
  EXPECT_FALSE(ValidateOutputPath("/etc/passwd").ok());
  EXPECT_FALSE(ValidateOutputPath("../x").ok());
  EXPECT_FALSE(ValidateOutputPath("images/../../x").ok());
  EXPECT_FALSE(ValidateOutputPath("images//x").ok());
  EXPECT_FALSE(ValidateOutputPath("images/").ok());
  EXPECT_FALSE(ValidateOutputPath("./x").ok());
  EXPECT_FALSE(ValidateOutputPath("a\\b").ok());
  EXPECT_FALSE(ValidateOutputPath("").ok());
}

TEST(JobTest, InfoJsonRoundTrip) {
  JobInfo info;
  info.id = 42;
  info.uid = 1001;
  info.name = "x \"quoted\".pdf";
  info.state = JobState::kFailed;
  info.document_bytes = 1ull << 33;
  info.pages_done = 3;
  info.pages_total = 9;
  info.submitted_ms = 1700000000000;
  info.finished_ms = 1700000001000;
  info.attempts = 2;
  info.error_code = StatusCode::kDeadlineExceeded;
  info.error = "too slow";
  info.results_fetched = true;
  info.pages = document::PageRange{2, 6};
  auto back = JobInfoFromJson(JobInfoToJson(info));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->id, info.id);
  EXPECT_EQ(back->uid, info.uid);
  EXPECT_EQ(back->name, info.name);
  EXPECT_EQ(back->state, info.state);
  EXPECT_EQ(back->document_bytes, info.document_bytes);
  EXPECT_EQ(back->pages_done, 3);
  EXPECT_EQ(back->pages_total, 9);
  EXPECT_EQ(back->finished_ms, info.finished_ms);
  EXPECT_EQ(back->attempts, 2);
  EXPECT_EQ(back->error_code, StatusCode::kDeadlineExceeded);
  EXPECT_EQ(back->error, "too slow");
  EXPECT_TRUE(back->results_fetched);
  EXPECT_EQ(back->pages, (document::PageRange{2, 6}));
}

TEST(JobTest, RecordsWithoutAPageRangeMeanTheWholeDocument) {
  JobInfo one;
  one.id = 1;
  nlohmann::json j = nlohmann::json::parse(JobInfoToJson(one));
  j.erase("first_page");
  j.erase("last_page");
  auto back = JobInfoFromJson(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->pages.whole());
  j["first_page"] = 5;
  j["last_page"] = 2;
  EXPECT_EQ(JobInfoFromJson(j.dump()).status().code(), StatusCode::kDataLoss);
}

TEST(JobTest, BrokenJsonIsDataLoss) {
  EXPECT_EQ(JobInfoFromJson("").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(JobInfoFromJson("[]").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(JobInfoFromJson(R"({"id": 1})").status().code(), StatusCode::kDataLoss);
  JobInfo one;
  one.id = 1;
  std::string good = JobInfoToJson(one);
  std::string bad_state = good;
  bad_state.replace(bad_state.find("queued"), 6, "zombie");
  EXPECT_FALSE(JobInfoFromJson(bad_state).ok());
}

}  // namespace
}  // namespace mineru::daemon
