#include "common/log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace mineru {
namespace {

struct Captured {
  LogLevel level;
  std::string file;
  std::string msg;
};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = GetLogLevel();
    SetLogCaptureForTest([this](LogLevel level, std::string_view file, int, std::string_view msg) {
      lines_.push_back({level, std::string(file), std::string(msg)});
    });
  }
  void TearDown() override {
    SetLogCaptureForTest(nullptr);
    SetLogLevel(saved_);
  }
  LogLevel saved_{};
  std::vector<Captured> lines_;
};

TEST_F(LogTest, StreamsOneLinePerStatement) {
  SetLogLevel(LogLevel::kInfo);
  MINERU_LOG(kInfo) << "listening on "
                    << "/run/x.sock"
                    << " fd " << 3;
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0].msg, "listening on /run/x.sock fd 3");
  EXPECT_EQ(lines_[0].level, LogLevel::kInfo);
  EXPECT_EQ(lines_[0].file, "log_test.cc");
}

TEST_F(LogTest, LevelFiltersAndSkipsEvaluation) {
  SetLogLevel(LogLevel::kWarning);
  int evaluated = 0;
  auto count = [&] { return ++evaluated; };
  MINERU_LOG(kDebug) << count();
  MINERU_LOG(kInfo) << count();
  MINERU_LOG(kError) << count();
  EXPECT_EQ(evaluated, 1);
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0].level, LogLevel::kError);
}

TEST(LogLevelTest, ParsesNames) {
  LogLevel level;
  EXPECT_TRUE(ParseLogLevel("debug", &level));
  EXPECT_EQ(level, LogLevel::kDebug);
  EXPECT_TRUE(ParseLogLevel("warn", &level));
  EXPECT_EQ(level, LogLevel::kWarning);
  EXPECT_FALSE(ParseLogLevel("loud", &level));
  EXPECT_EQ(LogLevelName(LogLevel::kError), "error");
}

TEST(LogSinkTest, StderrUnlessJournalStreamMatches) {
  if (std::getenv("JOURNAL_STREAM") != nullptr) GTEST_SKIP() << "running under journald";
  EXPECT_EQ(ActiveLogSink(), LogSink::kStderr);
}

}  // namespace
}  // namespace mineru
