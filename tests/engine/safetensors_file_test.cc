// The safetensors reader on hand-made headers: valid files round-trip; truncation, overlapping or
// out-of-range offsets, unknown dtypes, size mismatches and bad JSON are clear errors.
#include "engine/safetensors_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace mineru::engine {
namespace {

std::vector<uint8_t> MakeFile(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> f;
  f.reserve(8 + header.size() + data_bytes);
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) f.push_back(static_cast<uint8_t>(n >> (8 * i)));
  for (char c : header) f.push_back(static_cast<uint8_t>(c));
  f.resize(f.size() + data_bytes, 0);
  return f;
}

Status ParseStatus(const std::string& header, size_t data_bytes) {
  auto f = MakeFile(header, data_bytes);
  return ParseSafetensorsHeader(f, f.size()).status();
}

TEST(SafetensorsHeaderTest, ValidHeaderGivesSortedEntries) {
  auto f =
      MakeFile(R"({"b":{"dtype":"BF16","shape":[2,3],"data_offsets":[16,28]},)"
               R"("a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"__metadata__":{"format":"pt"}})",
               28);
  auto entries = ParseSafetensorsHeader(f, f.size());
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].name, "a");
  EXPECT_EQ((*entries)[1].name, "b");
  EXPECT_EQ((*entries)[1].dtype, StorageDtype::kBF16);
  EXPECT_EQ((*entries)[1].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ((*entries)[0].offset_bytes, f.size() - 28);
}

TEST(SafetensorsHeaderTest, MalformedHeadersAreClearErrors) {
  const auto expect_error = [](const std::string& header, size_t data, const std::string& needle) {
    Status s = ParseStatus(header, data);
    EXPECT_FALSE(s.ok()) << header;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  expect_error("{not json", 0, "not valid JSON");
  expect_error("[1,2]", 0, "not a JSON object");
  expect_error(R"({"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}})", 1, "unknown dtype");
  expect_error(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8, "past the data section");
  expect_error(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,12]}})", 16, "does not match shape");
  expect_error(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[8,4]}})", 16, "begin 8 > end 4");
  expect_error(R"({"a":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", 16, "negative");
  expect_error(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
               16, "overlap");
  expect_error(R"({"a":{"dtype":"F32","shape":[1]}})", 4, "data_offsets");
  expect_error(R"({"a":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,4]}})", 4,
               "too large");
}

TEST(SafetensorsHeaderTest, TruncatedFilesAreDataLoss) {
  auto f = MakeFile(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 16);
  for (size_t cut : {size_t{0}, size_t{5}, size_t{20}, f.size() - 1}) {
    auto r = ParseSafetensorsHeader(std::span<const uint8_t>(f.data(), cut), cut);
    EXPECT_FALSE(r.ok()) << cut;
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  }
  std::vector<uint8_t> huge(8, 0xff);
  EXPECT_FALSE(ParseSafetensorsHeader(huge, huge.size()).ok());
}

TEST(SafetensorsFileTest, WriteThenOpenRoundTrips) {
  const auto path =
      std::filesystem::temp_directory_path() / ("st_rt_" + std::to_string(getpid()) + ".safetensors");
  at::Tensor a = at::arange(12, at::kFloat).view({3, 4});
  at::Tensor b = at::arange(5, at::kLong);
  at::Tensor c = at::randn({2, 2}).to(at::kBFloat16);
  ASSERT_TRUE(WriteSafetensors(path.string(), {{"a", a}, {"b", b}, {"c", c}}).ok());
  auto f = SafetensorsFile::Open(path.string());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(at::equal(*f->View(*f->Find("a")), a));
  EXPECT_TRUE(at::equal(*f->View(*f->Find("b")), b));
  EXPECT_TRUE(at::equal(*f->View(*f->Find("c")), c));
  EXPECT_EQ(f->Find("d"), nullptr);
  std::filesystem::remove(path);
  auto missing = SafetensorsFile::Open(path.string());
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(path.string()), std::string::npos);
}

}  // namespace
}  // namespace mineru::engine
