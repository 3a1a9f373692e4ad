#include "common/base64.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace mineru {
namespace {

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(Base64Test, Rfc4648Vectors) {
  const std::pair<const char*, const char*> kVectors[] = {{"", ""},
                                                          {"f", "Zg=="},
                                                          {"fo", "Zm8="},
                                                          {"foo", "Zm9v"},
                                                          {"foob", "Zm9vYg=="},
                                                          {"fooba", "Zm9vYmE="},
                                                          {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : kVectors) {
    EXPECT_EQ(Base64Encode(Bytes(plain)), encoded);
    auto back = Base64Decode(encoded);
    ASSERT_TRUE(back.ok()) << encoded;
    EXPECT_EQ(*back, Bytes(plain));
  }
}

TEST(Base64Test, RoundTripsEveryByteAndLength) {
  std::mt19937 rng(7);
  for (size_t n = 0; n < 300; ++n) {
    std::vector<uint8_t> data(n);
    for (auto& b : data) b = static_cast<uint8_t>(rng());
    auto back = Base64Decode(Base64Encode(data));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, data);
  }
}

TEST(Base64Test, RefusesMalformedText) {
  for (const char* bad : {"Zg=", "Zm9", "Z===", "Zg==Zg==", "Zm9v\n", "Zm-v", "=Zm9", "Z=g="}) {
    EXPECT_FALSE(Base64Decode(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace mineru
