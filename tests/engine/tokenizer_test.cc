#include "engine/tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <thread>

#include "engine/byte_level_bpe.h"
#include "tests/engine/input_test_util.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

// The Qwen vocabulary, parsed once for the whole suite (11 MB of JSON).
const Tokenizer* QwenTokenizer(const std::filesystem::path& path) {
  static std::unique_ptr<Tokenizer> tokenizer;
  if (!tokenizer) {
    auto loaded = Tokenizer::FromFile(path);
    if (!loaded.ok()) return nullptr;
    tokenizer = std::move(loaded).value();
  }
  return tokenizer.get();
}

// A tokenizer.json with one token per byte (ids 0..255 in byte order), `merges` (byte-level text
// pairs; the merged tokens get the next ids) and `added` tokens.
Json TinyTokenizerJson(const std::vector<std::pair<std::string, std::string>>& merges,
                       Json added = Json::array()) {
  Json vocab = Json::object();
  int next = 0;
  for (int b = 0; b < 256; ++b) vocab[ByteLevelChar(static_cast<uint8_t>(b))] = next++;
  Json merge_list = Json::array();
  for (const auto& [l, r] : merges) {
    if (!vocab.contains(l + r)) vocab[l + r] = next++;
    merge_list.push_back(l + " " + r);
  }
  return Json{
      {"version", "1.0"},
      {"added_tokens", added},
      {"normalizer", Json{{"type", "NFC"}}},
      {"pre_tokenizer",
       Json{{"type", "Sequence"},
            {"pretokenizers",
             Json::array({Json{{"type", "Split"},
                               {"pattern", {{"Regex", "\\s+|[^\\s]+"}}},
                               {"behavior", "Isolated"},
                               {"invert", false}},
                          Json{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}}},
      {"decoder", Json{{"type", "ByteLevel"}}},
      {"model", Json{{"type", "BPE"}, {"vocab", vocab}, {"merges", merge_list}}}};
}

std::unique_ptr<Tokenizer> LoadTiny(const Json& j) {
  auto t = Tokenizer::FromJson(j.dump(), "tiny.json");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : nullptr;
}

Status LoadError(const Json& j) {
  auto t = Tokenizer::FromJson(j.dump(), "broken/tokenizer.json");
  EXPECT_FALSE(t.ok());
  return t.status();
}

TEST(TokenizerGoldenTest, EveryGoldenStringGivesTheReferenceIdsPiecesAndDecode) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const Tokenizer* tok = QwenTokenizer(vocab);
  ASSERT_NE(tok, nullptr);
  auto cases = testing::ReadJsonLines(shared / "golden/tokenizer/cases.jsonl");
  ASSERT_TRUE(cases.ok()) << cases.status().ToString();
  ASSERT_EQ(cases->size(), 66u);
  for (const Json& c : *cases) {
    const std::string name = c["name"];
    const std::string text = c["text"];
    auto ids = tok->Encode(text);
    ASSERT_TRUE(ids.ok()) << name << ": " << ids.status().ToString();
    EXPECT_EQ(*ids, c["ids"].get<std::vector<int32_t>>()) << name;
    std::vector<std::string> pieces;
    for (int32_t id : *ids) pieces.push_back(tok->TokenPiece(id).value_or("<none>"));
    EXPECT_EQ(pieces, c["pieces"].get<std::vector<std::string>>()) << name;
    auto decoded = tok->Decode(c["ids"].get<std::vector<int32_t>>());
    ASSERT_TRUE(decoded.ok()) << name;
    EXPECT_EQ(*decoded, c["decoded"].get<std::string>()) << name;
  }
}

TEST(TokenizerGoldenTest, AddedTokenIdsMatchTheVocabularyMetadata) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const Tokenizer* tok = QwenTokenizer(vocab);
  ASSERT_NE(tok, nullptr);
  auto meta = testing::ReadJsonFile(shared / "golden/tokenizer/tokenizer.json.meta.json");
  ASSERT_TRUE(meta.ok());
  const Json& added = (*meta)["vocabulary"]["added_tokens"];
  ASSERT_EQ(tok->added_tokens().size(), added.size());
  for (auto it = added.begin(); it != added.end(); ++it) {
    EXPECT_EQ(tok->AddedTokenId(it.key()), it->get<int32_t>()) << it.key();
    EXPECT_TRUE(tok->IsAddedToken(it->get<int32_t>()));
  }
  EXPECT_EQ(tok->bpe().vocab_size(), (*meta)["vocabulary"]["vocab_size"].get<size_t>());
  EXPECT_EQ(tok->bpe().num_merges(), (*meta)["vocabulary"]["merges"].get<size_t>());
  EXPECT_TRUE(tok->IsSpecialToken(*tok->AddedTokenId("<|im_end|>")));
  EXPECT_FALSE(tok->IsSpecialToken(*tok->AddedTokenId("<think>")));
  EXPECT_TRUE(tok->normalizes_nfc());
}

TEST(TokenizerGoldenTest, ConcurrentEncodesGiveTheSameIds) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const Tokenizer* tok = QwenTokenizer(vocab);
  ASSERT_NE(tok, nullptr);
  auto cases = testing::ReadJsonLines(shared / "golden/tokenizer/cases.jsonl");
  ASSERT_TRUE(cases.ok());
  std::vector<std::string> texts;
  std::vector<std::vector<int32_t>> expected;
  for (const Json& c : *cases) {
    texts.push_back(c["text"]);
    expected.push_back(c["ids"].get<std::vector<int32_t>>());
  }
  // Four threads share the tokenizer (and its word cache) and encode in different orders.
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (size_t k = 0; k < texts.size(); ++k) {
          const size_t i = (k * (t + 1) + round) % texts.size();
          auto ids = tok->Encode(texts[i]);
          if (!ids.ok() || *ids != expected[i]) ++wrong[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

TEST(TokenizerTest, EncodeRejectsInvalidUtf8WithTheOffset) {
  auto tok = LoadTiny(TinyTokenizerJson({}));
  ASSERT_NE(tok, nullptr);
  auto ids = tok->Encode(std::string("ok \xC3\x28 bad"));
  ASSERT_FALSE(ids.ok());
  EXPECT_EQ(ids.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(ids.status().message(), HasSubstr("byte offset 3"));
  std::vector<int32_t> kept = {7};
  EXPECT_FALSE(tok->EncodeAppend("\xED\xA0\x80", &kept).ok());  // a surrogate
  EXPECT_EQ(kept, std::vector<int32_t>{7});
}

TEST(TokenizerTest, DecodeRejectsUnknownIdsAndReplacesBrokenUtf8) {
  auto tok = LoadTiny(TinyTokenizerJson({}));
  ASSERT_NE(tok, nullptr);
  auto bad = tok->Decode(std::vector<int32_t>{65, 256});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("token id 256 at position 1"));
  EXPECT_FALSE(tok->Decode(std::vector<int32_t>{-1}).ok());
  // Byte tokens 0xE4 0xB8 (a cut-off three-byte character) then 'a': one U+FFFD for the maximal
  // ill-formed subpart, as TextDecoder does.
  auto lossy = tok->Decode(std::vector<int32_t>{0xE4, 0xB8, 'a'});
  ASSERT_TRUE(lossy.ok());
  EXPECT_EQ(*lossy,
            "\xEF\xBF\xBD"
            "a");
  auto two = tok->Decode(std::vector<int32_t>{0xFF, 0xC0, 'b'});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two,
            "\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
}

TEST(TokenizerTest, MergesApplyByRankAndDecodeRoundTrips) {
  // "abc": (b,c) outranks (a,b), so the result is [a, bc], not [ab, c].
  auto tok = LoadTiny(TinyTokenizerJson({{"b", "c"}, {"a", "b"}}));
  ASSERT_NE(tok, nullptr);
  auto ids = tok->Encode("abc");
  ASSERT_TRUE(ids.ok());
  ASSERT_EQ(ids->size(), 2u);
  EXPECT_EQ((*ids)[0], 'a');
  EXPECT_EQ(tok->TokenPiece((*ids)[1]), "bc");
  auto reversed = LoadTiny(TinyTokenizerJson({{"a", "b"}, {"b", "c"}}));
  ASSERT_NE(reversed, nullptr);
  auto ids2 = reversed->Encode("abc");
  ASSERT_TRUE(ids2.ok());
  ASSERT_EQ(ids2->size(), 2u);
  EXPECT_EQ(reversed->TokenPiece((*ids2)[0]), "ab");
  EXPECT_EQ(*tok->Decode(*ids), "abc");
}

TEST(TokenizerTest, NfcIsAppliedToTextButNotToAddedTokens) {
  Json added = Json::array({Json{{"id", 300}, {"content", "e\xCC\x81!"}, {"special", true}}});
  auto tok = LoadTiny(TinyTokenizerJson({}, added));
  ASSERT_NE(tok, nullptr);
  // "e" + combining acute composes to U+00E9 (two bytes C3 A9).
  auto ids = tok->Encode("e\xCC\x81");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int32_t>{0xC3, 0xA9}));
  // The added token's decomposed form is matched verbatim.
  auto with_added = tok->Encode("xe\xCC\x81!");
  ASSERT_TRUE(with_added.ok());
  EXPECT_EQ(*with_added, (std::vector<int32_t>{'x', 300}));
  EXPECT_EQ(*tok->Decode(*with_added), "xe\xCC\x81!");
}

TEST(TokenizerTest, LongestAddedTokenWinsAndStripFlagsSwallowWhiteSpace) {
  Json added = Json::array({Json{{"id", 300}, {"content", "<a>"}}, Json{{"id", 301}, {"content", "<a><b>"}},
                            Json{{"id", 302}, {"content", "[R]"}, {"rstrip", true}},
                            Json{{"id", 303}, {"content", "[L]"}, {"lstrip", true}}});
  auto tok = LoadTiny(TinyTokenizerJson({}, added));
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(*tok->Encode("<a><b><a>"), (std::vector<int32_t>{301, 300}));
  EXPECT_EQ(*tok->Encode("<a><b"), (std::vector<int32_t>{300, '<', 'b'}));
  EXPECT_EQ(*tok->Encode("x[R] \t\u3000y"), (std::vector<int32_t>{'x', 302, 'y'}));
  EXPECT_EQ(*tok->Encode("x \n[L]y"), (std::vector<int32_t>{'x', 303, 'y'}));
  EXPECT_EQ(*tok->Encode("x [R] y"), (std::vector<int32_t>{'x', ' ', 302, 'y'}));
  EXPECT_EQ(tok->TokenId("<a>"), 300);
  EXPECT_EQ(tok->TokenId("a"), 'a');
  EXPECT_EQ(tok->id_limit(), 304);
}

TEST(TokenizerLoadTest, MissingFileNamesThePath) {
  auto t = Tokenizer::FromFile("/nonexistent-dir/tokenizer.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(t.status().message(), HasSubstr("/nonexistent-dir/tokenizer.json"));
}

TEST(TokenizerLoadTest, ErrorsNameTheFileAndTheKey) {
  auto bad_json = Tokenizer::FromJson("{\"model\": [", "m/tokenizer.json");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_THAT(bad_json.status().message(), HasSubstr("m/tokenizer.json"));
  EXPECT_THAT(bad_json.status().message(), HasSubstr("not valid JSON"));

  Json j = TinyTokenizerJson({{"a", "b"}});
  j.erase("model");
  EXPECT_THAT(LoadError(j).message(), HasSubstr("broken/tokenizer.json: model: missing"));

  j = TinyTokenizerJson({{"a", "b"}});
  j["model"]["merges"].push_back("x");
  EXPECT_THAT(LoadError(j).message(), HasSubstr("model.merges[1]"));

  j = TinyTokenizerJson({{"a", "b"}});
  j["model"]["merges"].push_back("q zz");  // "qzz" is not in the vocabulary
  EXPECT_THAT(LoadError(j).message(), HasSubstr("model.merges[1] (\"q\", \"zz\")"));

  j = TinyTokenizerJson({});
  j["model"]["vocab"].erase(ByteLevelChar('A'));
  EXPECT_THAT(LoadError(j).message(), HasSubstr("no token for byte 65"));

  j = TinyTokenizerJson({});
  j["model"]["vocab"]["dup"] = 5;
  EXPECT_THAT(LoadError(j).message(), HasSubstr("id 5 is used by two tokens"));

  j = TinyTokenizerJson({});
  j["model"]["vocab"]["huge"] = int64_t{1} << 40;
  EXPECT_THAT(LoadError(j).message(), HasSubstr("outside [0,"));

  j = TinyTokenizerJson({});
  j["model"]["vocab"]["float"] = 1.5;
  EXPECT_THAT(LoadError(j).message(), HasSubstr("model.vocab[\"float\"]"));

  j = TinyTokenizerJson({});
  j["added_tokens"] = Json::array({Json{{"id", 400}, {"content", ""}}});
  EXPECT_THAT(LoadError(j).message(), HasSubstr("added_tokens[0].content"));

  j = TinyTokenizerJson({});
  j["added_tokens"] = Json::array({Json{{"content", "<x>"}}});
  EXPECT_THAT(LoadError(j).message(), HasSubstr("added_tokens[0].id"));

  j = TinyTokenizerJson({});
  j["normalizer"] = Json{{"type", "NFKC"}};
  Status s = LoadError(j);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("normalizer.type"));

  j = TinyTokenizerJson({});
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(unclosed";
  EXPECT_THAT(LoadError(j).message(), HasSubstr("pre_tokenizer"));

  j = TinyTokenizerJson({});
  j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed";
  EXPECT_THAT(LoadError(j).message(), HasSubstr("pre_tokenizer.pretokenizers[0].behavior"));

  j = TinyTokenizerJson({});
  j["model"]["byte_fallback"] = true;
  EXPECT_THAT(LoadError(j).message(), HasSubstr("model.byte_fallback"));

  j = TinyTokenizerJson({});
  j["model"]["type"] = "WordPiece";
  EXPECT_THAT(LoadError(j).message(), HasSubstr("model.type"));

  EXPECT_THAT(LoadError(Json::array()).message(), HasSubstr("not a JSON object"));
}

TEST(TokenizerLoadTest, MergesMayBeWrittenAsPairs) {
  Json j = TinyTokenizerJson({{"a", "b"}});
  j["model"]["merges"] = Json::array({Json::array({"a", "b"})});
  auto tok = LoadTiny(j);
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->Encode("ab")->size(), 1u);
}

TEST(TokenizerLoadTest, GptStyleByteLevelPreTokenizerSplitsWithItsOwnRegex) {
  Json j = TinyTokenizerJson({{"Ġ", "a"}, {"a", "a"}});
  j["pre_tokenizer"] = Json{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  auto tok = LoadTiny(j);
  ASSERT_NE(tok, nullptr);
  // GPT-2 pieces: "aa", " a" -> [aa][Ġa].
  auto ids = tok->Encode("aa a");
  ASSERT_TRUE(ids.ok());
  ASSERT_EQ(ids->size(), 2u);
  EXPECT_EQ(tok->TokenPiece((*ids)[0]), "aa");
  EXPECT_EQ(tok->TokenPiece((*ids)[1]), "Ġa");
}

}  // namespace
}  // namespace mineru::engine
