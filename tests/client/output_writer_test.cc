#include "client/output_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/daemon/temp_dir.h"

namespace mineru::ctl {
namespace {

namespace fs = std::filesystem;

client::ResultFile File(std::string path, std::string data) {
  return {std::move(path), std::vector<uint8_t>(data.begin(), data.end())};
}

TEST(OutputWriterTest, WritesFilesAndImagesFolder) {
  mineru::testing::TempDir tmp;
  std::string dir = tmp.path() + "/a/b";
  auto written = WriteResultFiles(dir, {File("doc.md", "# x\n"), File("images/1.jpg", "\xff\xd8")});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->size(), 2u);
  EXPECT_EQ(fs::file_size(dir + "/doc.md"), 4u);
  EXPECT_EQ(fs::file_size(dir + "/images/1.jpg"), 2u);
}

TEST(OutputWriterTest, RefusesEscapingPathsBeforeWritingAnything) {
  mineru::testing::TempDir tmp;
  for (const char* bad :
       {"../evil", "/etc/x", "images/../../x", "a/b/c", "", ".", "images/", "x\\y", "a\nb"}) {
    std::string dir = tmp.path() + "/out";
    auto r = WriteResultFiles(dir, {File("fine.md", "ok"), File(bad, "bad")});
    EXPECT_FALSE(r.ok()) << "'" << bad << "' was accepted";
    EXPECT_FALSE(fs::exists(dir + "/fine.md")) << "nothing is written when one name is bad";
  }
}

TEST(OutputWriterTest, DoesNotFollowSymlinks) {
  mineru::testing::TempDir tmp;
  std::string out = tmp.path() + "/out";
  fs::create_directories(out);
  fs::create_directories(tmp.path() + "/elsewhere");
  fs::create_symlink(tmp.path() + "/elsewhere", out + "/images");
  fs::create_symlink(tmp.path() + "/victim", out + "/doc.md");
  EXPECT_FALSE(WriteResultFiles(out, {File("doc.md", "x")}).ok());
  EXPECT_FALSE(fs::exists(tmp.path() + "/victim"));
  EXPECT_FALSE(WriteResultFiles(out, {File("images/a.jpg", "x")}).ok());
  EXPECT_FALSE(fs::exists(tmp.path() + "/elsewhere/a.jpg"));
}

}  // namespace
}  // namespace mineru::ctl
