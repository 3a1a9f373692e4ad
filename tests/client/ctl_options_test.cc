#include "client/ctl_options.h"

#include <gtest/gtest.h>

#include <set>

namespace mineru::ctl {
namespace {

Result<CtlOptions> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "mineructl");
  return ParseCtlOptions(static_cast<int>(args.size()), args.data());
}

TEST(CtlOptionsTest, SubmitWithOptions) {
  auto o = Parse({"--socket", "/s", "--json", "submit", "a.pdf", "b.pdf", "-o", "out", "--detach"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->command, Command::kSubmit);
  EXPECT_EQ(o->socket_path, "/s");
  EXPECT_TRUE(o->json);
  EXPECT_TRUE(o->detach);
  EXPECT_EQ(o->output_dir, "out");
  EXPECT_EQ(o->files, (std::vector<std::string>{"a.pdf", "b.pdf"}));
}

TEST(CtlOptionsTest, ModelPullAndList) {
  auto o = Parse({"model", "pull"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->command, Command::kModelPull);
  EXPECT_EQ(o->repo, "") << "the default repository is chosen by the command";
  EXPECT_EQ(o->retries, 3);
  o = Parse({"model", "pull", "org/m", "--endpoint=http://mirror", "--revision", "v1", "--models-dir", "/m",
             "--name", "m1", "--replace", "--retries", "0"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->repo, "org/m");
  EXPECT_EQ(o->endpoint, "http://mirror");
  EXPECT_EQ(o->revision, "v1");
  EXPECT_EQ(o->models_dir, "/m");
  EXPECT_EQ(o->name, "m1");
  EXPECT_TRUE(o->replace);
  EXPECT_EQ(o->retries, 0);
  o = Parse({"model", "list", "--models-dir", "/m"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->command, Command::kModelList);
  EXPECT_FALSE(TalksToDaemon(Command::kModelPull));
  EXPECT_FALSE(TalksToDaemon(Command::kModelList));
  EXPECT_TRUE(TalksToDaemon(Command::kSubmit));
  for (std::vector<const char*> bad : {std::vector<const char*>{"model"},
                                       {"model", "push"},
                                       {"model", "pull", "a/b", "c/d"},
                                       {"model", "list", "x"},
                                       {"model", "pull", "--retries", "-1"},
                                       {"model", "pull", "--replace=yes"}}) {
    EXPECT_FALSE(Parse(bad).ok()) << bad.back();
  }
}

TEST(CtlOptionsTest, PageRangesCountFromOne) {
  using Range = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(*ParsePageRange("3"), (Range{2, 2}));
  EXPECT_EQ(*ParsePageRange("3-7"), (Range{2, 6}));
  EXPECT_EQ(*ParsePageRange("3-"), (Range{2, UINT32_MAX}));
  EXPECT_EQ(*ParsePageRange("1-1"), (Range{0, 0}));
  for (const char* bad :
       {"", "0", "0-3", "-3", "7-3", "a", "3-b", "3--4", "1 -2", "99999999999", "4294967295"}) {
    EXPECT_EQ(ParsePageRange(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  auto o = Parse({"submit", "a.pdf", "--pages", "2-"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->first_page, 1u);
  EXPECT_EQ(o->last_page, UINT32_MAX);
  EXPECT_FALSE(Parse({"submit", "a.pdf", "--pages", "0"}).ok());
}

TEST(CtlOptionsTest, BudgetTakesOneSize) {
  auto o = Parse({"budget", "6G"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->command, Command::kBudget);
  EXPECT_EQ(o->vram_budget_bytes, 6ull << 30);
  EXPECT_FALSE(Parse({"budget"}).ok());
  EXPECT_FALSE(Parse({"budget", "0"}).ok());
  EXPECT_FALSE(Parse({"budget", "6G", "7G"}).ok());
  EXPECT_FALSE(Parse({"budget", "six"}).ok());
}

TEST(CtlOptionsTest, AliasesAndIds) {
  auto ps = Parse({"ps", "--all"});
  ASSERT_TRUE(ps.ok());
  EXPECT_EQ(ps->command, Command::kList);
  EXPECT_TRUE(ps->all);
  auto wait = Parse({"wait", "3", "17", "--timeout", "2s"});
  ASSERT_TRUE(wait.ok());
  EXPECT_EQ(wait->job_ids, (std::vector<uint64_t>{3, 17}));
  EXPECT_EQ(wait->timeout_ms, 2000);
  auto stdin_submit = Parse({"submit", "-"});
  ASSERT_TRUE(stdin_submit.ok());
  EXPECT_EQ(stdin_submit->files, std::vector<std::string>{"-"});
}

TEST(CtlOptionsTest, ValuesAfterAnEqualsSignAndOperandsAfterDoubleDash) {
  auto submit =
      Parse({"--socket=/tmp/s.sock", "submit", "--pages=3-7", "-o", "out", "--name=paper", "--", "-odd.pdf"});
  ASSERT_TRUE(submit.ok()) << submit.status().ToString();
  EXPECT_EQ(submit->socket_path, "/tmp/s.sock");
  EXPECT_EQ(submit->first_page, 2u);
  EXPECT_EQ(submit->last_page, 6u);
  EXPECT_EQ(submit->name, "paper");
  EXPECT_EQ(submit->output_dir, "out");
  EXPECT_EQ(submit->files, std::vector<std::string>{"-odd.pdf"});
  auto operand = Parse({"submit", "--", "--json"});
  ASSERT_TRUE(operand.ok());
  EXPECT_EQ(operand->files, std::vector<std::string>{"--json"});
  EXPECT_FALSE(operand->json) << "after --, --json is a file name";
  auto wait = Parse({"wait", "--timeout=2s", "--", "5"});
  ASSERT_TRUE(wait.ok());
  EXPECT_EQ(wait->timeout_ms, 2000);
  EXPECT_EQ(wait->job_ids, std::vector<uint64_t>{5});
  auto empty_value = Parse({"submit", "--name=", "a.pdf"});
  ASSERT_TRUE(empty_value.ok());
  EXPECT_EQ(empty_value->name, "");
  EXPECT_EQ(Parse({"submit", "--detach=yes", "a.pdf"}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Parse({"--json=1", "list"}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Parse({"--", "submit", "a.pdf"}).status().code(), StatusCode::kInvalidArgument)
      << "no command before --";
  EXPECT_EQ(Parse({"wait", "--", "--timeout"}).status().code(), StatusCode::kInvalidArgument)
      << "an operand that is not an id";
}

TEST(CtlOptionsTest, ExitCodesForATimeoutAndAWriteErrorAreTheirOwn) {
  EXPECT_EQ(ExitCodeFor(StatusCode::kDeadlineExceeded), kExitTimeout);
  std::set<int> codes = {kExitOk,         kExitJobFailed, kExitUsage,      kExitBadInput, kExitUnavailable,
                         kExitWriteError, kExitBusy,      kExitPermission, kExitTimeout,  kExitInterrupted};
  EXPECT_EQ(codes.size(), 10u);
}

TEST(CtlOptionsTest, UsageErrors) {
  EXPECT_FALSE(Parse({}).ok());
  EXPECT_FALSE(Parse({"nonsense"}).ok());
  EXPECT_FALSE(Parse({"submit"}).ok());
  EXPECT_FALSE(Parse({"status"}).ok());
  EXPECT_FALSE(Parse({"status", "0"}).ok());
  EXPECT_FALSE(Parse({"status", "12x"}).ok());
  EXPECT_FALSE(Parse({"status", "-5"}).ok());
  EXPECT_FALSE(Parse({"cancel"}).ok());
  EXPECT_FALSE(Parse({"cancel", "3", "--all"}).ok());
  EXPECT_FALSE(Parse({"fetch", "3"}).ok());
  EXPECT_FALSE(Parse({"fetch", "3", "4", "-o", "d"}).ok());
  EXPECT_FALSE(Parse({"list", "extra"}).ok());
  EXPECT_FALSE(Parse({"submit", "a.pdf", "--backend", "gpu"}).ok());
  EXPECT_FALSE(Parse({"submit", "a.pdf", "b.pdf", "--name", "x"}).ok());
  EXPECT_FALSE(Parse({"submit", "a.pdf", "-o"}).ok());
  EXPECT_FALSE(Parse({"--frob", "list"}).ok());
}

TEST(CtlOptionsTest, HelpAndVersionWinAnywhere) {
  EXPECT_EQ(Parse({"submit", "--help"})->command, Command::kHelp);
  EXPECT_EQ(Parse({"--version"})->command, Command::kVersion);
}

TEST(CtlOptionsTest, ExitCodes) {
  EXPECT_EQ(ExitCodeFor(StatusCode::kOk), 0);
  EXPECT_EQ(ExitCodeFor(StatusCode::kUnavailable), 69);
  EXPECT_EQ(ExitCodeFor(StatusCode::kBusy), 75);
  EXPECT_EQ(ExitCodeFor(StatusCode::kPermissionDenied), 77);
  EXPECT_EQ(ExitCodeFor(StatusCode::kInvalidArgument), 65);
  EXPECT_EQ(ExitCodeFor(StatusCode::kNotFound), 65);
  EXPECT_EQ(ExitCodeFor(StatusCode::kCancelled), 130);
  EXPECT_EQ(ExitCodeFor(StatusCode::kInternal), 1);
}

}  // namespace
}  // namespace mineru::ctl
