// Result records: round trips of every kind; truncation at every byte; forged sizes and unsafe names.
#include "shm/result_record.h"

#include <gtest/gtest.h>

#include <cstring>

namespace mineru::shm {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(ResultRecordTest, EveryKindRoundTrips) {
  const std::vector<ResultRecord> records = {
      {ResultKind::kPageMarkdown, OutputRole::kNoRole, 1, 0, "", Bytes("# Title\n\ntext")},
      {ResultKind::kContentListItems, OutputRole::kNoRole, 1, 0, "", Bytes(R"([{"type":"text"}])")},
      {ResultKind::kMiddleJson, OutputRole::kNoRole, 1, kNoPage, "", Bytes("{}")},
      {ResultKind::kModelOutput, OutputRole::kNoRole, 1, 3, "", Bytes("<|box_start|>")},
      {ResultKind::kImageCrop, OutputRole::kNoRole, 1, 3, "p3_img0.jpg", std::vector<uint8_t>(5000, 0xFF)},
      {ResultKind::kOutputFile, OutputRole::kMarkdown, 1, kNoPage, "paper.md", Bytes("all")},
      {ResultKind::kOutputFile, OutputRole::kContentList, 2, kNoPage, "paper_content_list.json", {}},
  };
  for (const ResultRecord& r : records) {
    auto bytes = EncodeResultRecord(r);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_EQ(bytes->size(), kResultRecordHeaderBytes + r.name.size() + r.data.size());
    auto view = ParseResultRecord(*bytes);
    ASSERT_TRUE(view.ok()) << view.status().ToString();
    EXPECT_EQ(view->kind, r.kind);
    EXPECT_EQ(view->role, r.role);
    EXPECT_EQ(view->job_id, r.job_id);
    EXPECT_EQ(view->page_index, r.page_index);
    EXPECT_EQ(view->name, r.name);
    EXPECT_TRUE(std::equal(view->data.begin(), view->data.end(), r.data.begin(), r.data.end()));
    for (size_t cut = 0; cut < bytes->size(); ++cut) {
      EXPECT_FALSE(ParseResultRecord(std::span<const uint8_t>(bytes->data(), cut)).ok()) << cut;
    }
    auto longer = *bytes;
    longer.push_back(0);
    EXPECT_FALSE(ParseResultRecord(longer).ok());
  }
}

TEST(ResultRecordTest, ForgedSizesKindsAndRoles) {
  auto good = EncodeResultRecord(ResultKind::kImageCrop, OutputRole::kNoRole, 1, 0, "a.png", Bytes("xyz"));
  ASSERT_TRUE(good.ok());
  auto patch32 = [&](size_t off, uint32_t v) {
    auto b = *good;
    std::memcpy(b.data() + off, &v, 4);
    return b;
  };
  auto patch64 = [&](size_t off, uint64_t v) {
    auto b = *good;
    std::memcpy(b.data() + off, &v, 8);
    return b;
  };
  EXPECT_FALSE(ParseResultRecord(patch32(20, 0xFFFFFFFF)).ok());         // name length
  EXPECT_FALSE(ParseResultRecord(patch32(20, 6)).ok());                  // name eats data
  EXPECT_FALSE(ParseResultRecord(patch64(24, uint64_t{1} << 63)).ok());  // data length
  EXPECT_FALSE(ParseResultRecord(patch64(24, 2)).ok());
  EXPECT_FALSE(ParseResultRecord(patch32(0, 0)).ok());  // magic
  auto kind = *good;
  kind[4] = 99;
  EXPECT_FALSE(ParseResultRecord(kind).ok());
  auto role = *good;
  role[6] = 1;  // a role on an image crop
  EXPECT_FALSE(ParseResultRecord(role).ok());
  EXPECT_FALSE(EncodeResultRecord(ResultKind::kOutputFile, OutputRole::kNoRole, 1, 0, "x.md", {}).ok());
}

TEST(ResultRecordTest, UnsafeNamesAreRefused) {
  const std::string_view names[] = {
      "../x.png", "a/b.png", ".hidden", "..", ".", "a\\b", std::string_view("a\0b", 3), "tab\there"};
  for (std::string_view name : names) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(ValidateResultName(name, ResultKind::kImageCrop).ok());
    EXPECT_FALSE(EncodeResultRecord(ResultKind::kImageCrop, OutputRole::kNoRole, 1, 0, name, {}).ok());
  }
  EXPECT_FALSE(ValidateResultName("", ResultKind::kImageCrop).ok());
  EXPECT_FALSE(ValidateResultName(std::string(256, 'a'), ResultKind::kImageCrop).ok());
  EXPECT_TRUE(ValidateResultName("", ResultKind::kPageMarkdown).ok());
  EXPECT_TRUE(ValidateResultName("images_p1 (2).jpg", ResultKind::kImageCrop).ok());
}

}  // namespace
}  // namespace mineru::shm
