#include "common/config_loader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace mineru {
namespace {

struct Demo {
  uint64_t budget = 0;
  int64_t timeout_ms = 0;
  bool verbose = false;
  int64_t workers = 1;
  std::string name = "default";
  std::string dir;
};

ConfigSchema<Demo> Schema() {
  ConfigSchema<Demo> s;
  s.Bytes("budget", &Demo::budget, "bytes")
      .Millis("timeout", &Demo::timeout_ms, "a duration")
      .Bool("verbose", &Demo::verbose, "a flag")
      .Int("workers", &Demo::workers, 0, 64, "threads")
      .String(
          "name", &Demo::name, "a name",
          [](std::string_view v) { return v.empty() ? InvalidArgument("must not be empty") : Status::Ok(); })
      .Path("dir", &Demo::dir, "a folder");
  return s;
}

TEST(ParseByteSizeTest, Units) {
  EXPECT_EQ(*ParseByteSize("0"), 0u);
  EXPECT_EQ(*ParseByteSize("4096"), 4096u);
  EXPECT_EQ(*ParseByteSize("512K"), 512u << 10);
  EXPECT_EQ(*ParseByteSize("6G"), 6ull << 30);
  EXPECT_EQ(*ParseByteSize("6 GiB"), 6ull << 30);
  EXPECT_EQ(*ParseByteSize("1.5g"), 3ull << 29);
  EXPECT_EQ(*ParseByteSize("2T"), 2ull << 40);
  EXPECT_FALSE(ParseByteSize("").ok());
  EXPECT_FALSE(ParseByteSize("G").ok());
  EXPECT_FALSE(ParseByteSize("6X").ok());
  EXPECT_FALSE(ParseByteSize("-1").ok());
  EXPECT_FALSE(ParseByteSize("99999999999T").ok());
}

TEST(ParseDurationTest, Units) {
  EXPECT_EQ(*ParseDurationMillis("250ms"), 250);
  EXPECT_EQ(*ParseDurationMillis("30s"), 30'000);
  EXPECT_EQ(*ParseDurationMillis("30"), 30'000);
  EXPECT_EQ(*ParseDurationMillis("5m"), 300'000);
  EXPECT_EQ(*ParseDurationMillis("1.5h"), 5'400'000);
  EXPECT_EQ(*ParseDurationMillis("1d"), 86'400'000);
  EXPECT_FALSE(ParseDurationMillis("soon").ok());
  EXPECT_FALSE(ParseDurationMillis("5 parsecs").ok());
}

TEST(ParseScalarTest, BoolsAndInts) {
  EXPECT_TRUE(*ParseBool("yes"));
  EXPECT_FALSE(*ParseBool("Off"));
  EXPECT_FALSE(ParseBool("maybe").ok());
  EXPECT_EQ(*ParseInt("-3", -5, 5), -3);
  EXPECT_EQ(ParseInt("6", -5, 5).status().code(), StatusCode::kOutOfRange);
  EXPECT_FALSE(ParseInt("3x", 0, 9).ok());
  EXPECT_FALSE(ParseInt("99999999999999999999", 0, 9).ok());
}

TEST(FormatByteSizeTest, RoundTrips) {
  EXPECT_EQ(FormatByteSize(6ull << 30), "6G");
  EXPECT_EQ(FormatByteSize(1536ull << 20), "1.5G");
  EXPECT_EQ(FormatByteSize(100), "100B");
  EXPECT_EQ(*ParseByteSize(FormatByteSize(3ull << 20)), 3ull << 20);
}

TEST(FormatTest, ExactSizesAndDurationsReadBackTheSame) {
  EXPECT_EQ(FormatByteSizeExact(6ull << 30), "6G");
  EXPECT_EQ(FormatByteSizeExact(1536ull << 20), "1536M");
  EXPECT_EQ(FormatByteSizeExact(1'000'000), "1000000");
  EXPECT_EQ(FormatByteSizeExact(0), "0");
  EXPECT_EQ(FormatDurationMillis(30'000), "30s");
  EXPECT_EQ(FormatDurationMillis(86'400'000), "1d");
  EXPECT_EQ(FormatDurationMillis(90'000), "90s");
  EXPECT_EQ(FormatDurationMillis(250), "250ms");
  for (uint64_t b : {0ull, 1ull, 1'000'000ull, 3ull << 20, (5ull << 40) + 1}) {
    EXPECT_EQ(*ParseByteSize(FormatByteSizeExact(b)), b) << b;
  }
  for (int64_t ms : {0ll, 1ll, 999ll, 1000ll, 61'000ll, 7'200'000ll, 86'400'001ll}) {
    EXPECT_EQ(*ParseDurationMillis(FormatDurationMillis(ms)), ms) << ms;
  }
}

TEST(ConfigSchemaTest, FormatWritesWhatLoadReadsBack) {
  Demo d;
  ASSERT_TRUE(Schema()
                  .LoadText("budget = 1536M\ntimeout = 250ms\nverbose = on\nworkers = 3\nname = x y\n",
                            "demo.conf", &d)
                  .ok());
  auto formatted = Schema().Format(d);
  ASSERT_EQ(formatted.size(), 6u);
  EXPECT_EQ(formatted[0], (std::pair<std::string, std::string>{"budget", "1536M"}));
  EXPECT_EQ(formatted[5], (std::pair<std::string, std::string>{"dir", "\"\""}));
  std::string text;
  for (const auto& [k, v] : formatted) text += k + " = " + v + "\n";
  Demo again;
  again.name = "other";
  again.dir = "/somewhere";
  ASSERT_TRUE(Schema().LoadText(text, "formatted", &again).ok()) << text;
  EXPECT_EQ(again.budget, d.budget);
  EXPECT_EQ(again.timeout_ms, d.timeout_ms);
  EXPECT_EQ(again.verbose, d.verbose);
  EXPECT_EQ(again.workers, d.workers);
  EXPECT_EQ(again.name, d.name);
  EXPECT_EQ(again.dir, "");
}

TEST(ConfigSchemaTest, LoadsEveryTypeWithCommentsAndQuotes) {
  Demo d;
  Status st = Schema().LoadText(
      "# a comment\n"
      "budget = 6G   # trailing comment\n"
      "\n"
      "timeout=2m\n"
      "  verbose = yes\r\n"
      "workers = 8\n"
      "name = \"has # inside\"\n"
      "dir = /var/lib/x\n",
      "demo.conf", &d);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(d.budget, 6ull << 30);
  EXPECT_EQ(d.timeout_ms, 120'000);
  EXPECT_TRUE(d.verbose);
  EXPECT_EQ(d.workers, 8);
  EXPECT_EQ(d.name, "has # inside");
  EXPECT_EQ(d.dir, "/var/lib/x");
}

TEST(ConfigSchemaTest, ErrorsNameFileLineAndKey) {
  Demo d;
  Status unknown = Schema().LoadText("budget = 1G\nbugdet = 2G\n", "demo.conf", &d);
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(), "demo.conf:2: unknown key 'bugdet'");

  Status bad = Schema().LoadText("\n\nworkers = lots\n", "demo.conf", &d);
  EXPECT_NE(bad.message().find("demo.conf:3: key 'workers'"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("'lots' is not an integer"), std::string::npos) << bad.message();

  Status range = Schema().LoadText("workers = 65\n", "demo.conf", &d);
  EXPECT_NE(range.message().find("demo.conf:1: key 'workers'"), std::string::npos);

  Status dup = Schema().LoadText("budget = 1G\nbudget = 2G\n", "demo.conf", &d);
  EXPECT_EQ(dup.message(), "demo.conf:2: key 'budget' is set twice");

  Status syntax = Schema().LoadText("just words\n", "demo.conf", &d);
  EXPECT_NE(syntax.message().find("demo.conf:1: expected 'key = value'"), std::string::npos);

  Status check = Schema().LoadText("name = \"\"\n", "demo.conf", &d);
  EXPECT_EQ(check.message(), "demo.conf:1: key 'name': must not be empty");

  Status quotes = Schema().LoadText("name = \"open\n", "demo.conf", &d);
  EXPECT_NE(quotes.message().find("unbalanced quotes"), std::string::npos);
}

TEST(ConfigSchemaTest, FailedLoadNamesTheMissingFile) {
  Demo d;
  Status st = Schema().LoadFile("/nonexistent/minerud.conf", &d);
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_NE(st.message().find("/nonexistent/minerud.conf"), std::string::npos);
}

TEST(ConfigSchemaTest, OverridesApplyAfterTheFile) {
  char path[] = "/tmp/minerud-config-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  { std::ofstream(path) << "budget = 1G\nworkers = 2\n"; }
  Demo d;
  auto schema = Schema();
  ASSERT_TRUE(schema.LoadFile(path, &d).ok());
  ASSERT_TRUE(schema.Override("budget", "3G", "--vram-budget", &d).ok());
  ASSERT_TRUE(schema.OverrideAssignment("workers = 5", &d).ok());
  EXPECT_EQ(d.budget, 3ull << 30);
  EXPECT_EQ(d.workers, 5);
  Status bad = schema.Override("budget", "lots", "--vram-budget", &d);
  EXPECT_NE(bad.message().find("--vram-budget: key 'budget'"), std::string::npos) << bad.message();
  EXPECT_EQ(d.budget, 3ull << 30);  // a failed override changes nothing
  EXPECT_FALSE(schema.OverrideAssignment("workers", &d).ok());
  std::remove(path);
}

TEST(ConfigSchemaTest, ListsKeysWithTypes) {
  auto schema = Schema();
  ASSERT_EQ(schema.keys().size(), 6u);
  EXPECT_EQ(schema.keys()[0].key, "budget");
  EXPECT_EQ(schema.keys()[0].type, "size");
  EXPECT_EQ(schema.keys()[5].type, "path");
  EXPECT_TRUE(schema.HasKey("timeout"));
  EXPECT_FALSE(schema.HasKey("nope"));
}

}  // namespace
}  // namespace mineru
