#include "engine/tokenizer_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace mineru::engine {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

Json Minimal() {
  return Json{{"model", {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 1}, {"ab", 2}}}, {"merges", {"a b"}}}}};
}

TEST(TokenizerJsonTest, ReadsModelAddedTokensNormalizerAndPattern) {
  Json j = Minimal();
  j["added_tokens"] = Json::array({Json{{"id", 7}, {"content", "<x>"}, {"special", true}, {"lstrip", true}},
                                   Json{{"id", 8}, {"content", "<y>"}, {"rstrip", true}}});
  j["normalizer"] = Json{{"type", "Sequence"}, {"normalizers", Json::array({Json{{"type", "NFC"}}})}};
  j["pre_tokenizer"] = Json{{"type", "Split"}, {"pattern", {{"String", "a.b"}}}, {"behavior", "Isolated"}};
  j["model"]["ignore_merges"] = true;
  auto spec = ParseTokenizerJson(j.dump());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->vocab.size(), 3u);
  ASSERT_EQ(spec->merges.size(), 1u);
  EXPECT_EQ(spec->merges[0], (std::pair<std::string, std::string>{"a", "b"}));
  EXPECT_TRUE(spec->ignore_merges);
  EXPECT_TRUE(spec->nfc);
  ASSERT_TRUE(spec->split_pattern.has_value());
  EXPECT_EQ(*spec->split_pattern, "a\\.b");  // a String pattern is literal
  ASSERT_EQ(spec->added_tokens.size(), 2u);
  EXPECT_EQ(spec->added_tokens[0].id, 7);
  EXPECT_TRUE(spec->added_tokens[0].special);
  EXPECT_TRUE(spec->added_tokens[0].lstrip);
  EXPECT_FALSE(spec->added_tokens[0].rstrip);
  EXPECT_FALSE(spec->added_tokens[1].special);
  EXPECT_TRUE(spec->added_tokens[1].rstrip);
}

TEST(TokenizerJsonTest, NoNormalizerAndNoPreTokenizerAreAllowed) {
  Json j = Minimal();
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = nullptr;
  auto spec = ParseTokenizerJson(j.dump());
  ASSERT_TRUE(spec.ok());
  EXPECT_FALSE(spec->nfc);
  EXPECT_FALSE(spec->split_pattern.has_value());
}

TEST(TokenizerJsonTest, UnsupportedFeaturesAreNamedNotIgnored) {
  struct Case {
    const char* key;
    Json value;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"normalizer", Json{{"type", "Lowercase"}}, "normalizer.type"},
      {"normalizer", Json{{"type", "Sequence"}, {"normalizers", Json::array({Json{{"type", "NFKD"}}})}},
       "normalizer.normalizers[0].type"},
      {"pre_tokenizer", Json{{"type", "Whitespace"}}, "pre_tokenizer.type"},
      {"pre_tokenizer", Json{{"type", "ByteLevel"}, {"add_prefix_space", true}},
       "pre_tokenizer.add_prefix_space"},
      {"pre_tokenizer",
       Json{{"type", "Split"}, {"pattern", {{"Regex", "x"}}}, {"behavior", "Isolated"}, {"invert", true}},
       "pre_tokenizer.invert"},
      {"decoder", Json{{"type", "WordPiece"}}, "decoder.type"},
  };
  for (const auto& c : cases) {
    Json j = Minimal();
    j[c.key] = c.value;
    auto spec = ParseTokenizerJson(j.dump());
    ASSERT_FALSE(spec.ok()) << c.expected;
    EXPECT_EQ(spec.status().code(), StatusCode::kUnimplemented) << c.expected;
    EXPECT_THAT(spec.status().message(), HasSubstr(c.expected));
  }
  Json two_splits = Minimal();
  two_splits["pre_tokenizer"] =
      Json{{"type", "Sequence"},
           {"pretokenizers",
            Json::array({Json{{"type", "Split"}, {"pattern", {{"Regex", "x"}}}, {"behavior", "Isolated"}},
                         Json{{"type", "ByteLevel"}, {"use_regex", true}}})}};
  EXPECT_THAT(ParseTokenizerJson(two_splits.dump()).status().message(), HasSubstr("pretokenizers[1]"));
}

TEST(TokenizerJsonTest, MalformedValuesAreErrors) {
  Json j = Minimal();
  j["model"]["merges"] = Json::array({"a b c"});
  EXPECT_THAT(ParseTokenizerJson(j.dump()).status().message(), HasSubstr("model.merges[0]"));
  j = Minimal();
  j["model"]["merges"] = Json::array({Json::array({"a"})});
  EXPECT_THAT(ParseTokenizerJson(j.dump()).status().message(), HasSubstr("model.merges[0]"));
  j = Minimal();
  j["model"]["vocab"] = Json::array();
  EXPECT_THAT(ParseTokenizerJson(j.dump()).status().message(), HasSubstr("model.vocab"));
  j = Minimal();
  j["added_tokens"] = Json::array({Json{{"id", 1}, {"content", "<x>"}, {"special", "yes"}}});
  EXPECT_THAT(ParseTokenizerJson(j.dump()).status().message(), HasSubstr("added_tokens[0].special"));
  j = Minimal();
  j["added_tokens"] = Json::array({Json{{"id", -4}, {"content", "<x>"}}});
  EXPECT_THAT(ParseTokenizerJson(j.dump()).status().message(), HasSubstr("added_tokens[0].id"));
  EXPECT_FALSE(ParseTokenizerJson("").ok());
  EXPECT_FALSE(ParseTokenizerJson("{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [\"\xFF b\"]}}").ok());
}

}  // namespace
}  // namespace mineru::engine
