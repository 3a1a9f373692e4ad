#include "engine/tokenizer_prompt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/engine/input_test_util.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

struct PromptFixture {
  Json vocabulary_json;
  std::unique_ptr<Tokenizer> qwen;
  std::map<std::string, Json> cases;
};

// The Qwen vocabulary (raw JSON and tokenizer) and the golden strings, loaded once.
const PromptFixture* Fixture(const std::filesystem::path& shared, const std::filesystem::path& vocab) {
  static std::unique_ptr<PromptFixture> fixture;
  if (fixture) return fixture.get();
  auto f = std::make_unique<PromptFixture>();
  auto text = testing::ReadTextFile(vocab);
  if (!text.ok()) return nullptr;
  f->vocabulary_json = Json::parse(*text, nullptr, false);
  auto tok = Tokenizer::FromJson(*text, vocab.string());
  if (!tok.ok()) return nullptr;
  f->qwen = std::move(tok).value();
  auto lines = testing::ReadJsonLines(shared / "golden/tokenizer/cases.jsonl");
  if (!lines.ok()) return nullptr;
  for (auto& c : *lines) f->cases[c["name"].get<std::string>()] = c;
  fixture = std::move(f);
  return fixture.get();
}

std::vector<int32_t> Ids(const Json& c) { return c["ids"].get<std::vector<int32_t>>(); }

// The MinerU prompt exactly as the golden set spells it.
std::string GoldenPrompt(const PromptFixture& f) {
  return f.cases.at("mineru-prompt")["text"].get<std::string>();
}

TEST(TokenizerPromptTest, ImagePromptIsTheTwoHalvesAroundOneImageToken) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const PromptFixture* f = Fixture(shared, vocab);
  ASSERT_NE(f, nullptr);
  constexpr int32_t kImageId = 151646;  // MinerU's config class default, as any id from config.json
  auto ids = EncodeImagePrompt(*f->qwen, GoldenPrompt(*f), kImageId);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  std::vector<int32_t> expected = Ids(f->cases.at("mineru-prompt-before-image"));
  expected.push_back(kImageId);
  for (int32_t id : Ids(f->cases.at("mineru-prompt-after-image"))) expected.push_back(id);
  EXPECT_EQ(*ids, expected);
  EXPECT_EQ(FindImageToken(*ids, kImageId), Ids(f->cases.at("mineru-prompt-before-image")).size());
  // Without the image split, <image> is ordinary text in this vocabulary.
  EXPECT_EQ(*f->qwen->Encode("<image>\nDocument Parsing:"), Ids(f->cases.at("image-placeholder")));
}

TEST(TokenizerPromptTest, AddedTokensOfACheckpointTokenizerAreHonoured) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const PromptFixture* f = Fixture(shared, vocab);
  ASSERT_NE(f, nullptr);
  // A checkpoint-style tokenizer.json: the Qwen vocabulary plus MinerU-like added tokens.
  Json j = f->vocabulary_json;
  const std::vector<std::string> extra = {"<image>", "<|ref_start|>", "<|ref_end|>", "<|md_start|>",
                                          "<|md_end|>"};
  int32_t next = 151669;
  for (const auto& content : extra) {
    j["added_tokens"].push_back(Json{{"id", next++},
                                     {"content", content},
                                     {"single_word", false},
                                     {"lstrip", false},
                                     {"rstrip", false},
                                     {"normalized", false},
                                     {"special", true}});
  }
  auto tok = Tokenizer::FromJson(j.dump(), "checkpoint/tokenizer.json");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  const int32_t image_id = *(*tok)->AddedTokenId("<image>");
  EXPECT_EQ(image_id, 151669);
  EXPECT_EQ((*tok)->id_limit(), 151674);

  // The plain encode now gives <image> as one token; the split encode agrees with it.
  auto whole = (*tok)->Encode(GoldenPrompt(*f));
  ASSERT_TRUE(whole.ok());
  auto split = EncodeImagePrompt(**tok, GoldenPrompt(*f), image_id);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(*whole, *split);
  EXPECT_EQ(std::count(whole->begin(), whole->end(), image_id), 1);

  // Model output grammar: each added token is one id and decoding gives the text back.
  const std::string output =
      "<|box_start|>079 624 285 638<|box_end|><|ref_start|>title<|ref_end|><|md_start|># Zero"
      "<|md_end|>\n";
  auto out_ids = (*tok)->Encode(output);
  ASSERT_TRUE(out_ids.ok());
  for (const auto& content : extra) {
    if (content == "<image>") continue;
    EXPECT_EQ(std::count(out_ids->begin(), out_ids->end(), *(*tok)->AddedTokenId(content)), 1) << content;
  }
  EXPECT_EQ(*(*tok)->Decode(*out_ids), output);
  // The Qwen golden for the same text, where MinerU's tokens are ordinary text, differs.
  EXPECT_NE(*out_ids, *f->qwen->Encode(output));

  EXPECT_EQ(*ResolveImageTokenId(**tok, std::nullopt), image_id);
  EXPECT_EQ(*ResolveImageTokenId(**tok, int64_t{151669}), image_id);
  auto conflict = ResolveImageTokenId(**tok, int64_t{151646});
  ASSERT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.status().message(), HasSubstr("151669"));
  EXPECT_THAT(conflict.status().message(), HasSubstr("151646"));
}

TEST(TokenizerPromptTest, ResolveAndEncodeRejectBadInput) {
  MINERU_SHARED_DIR_OR_SKIP(shared);
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const PromptFixture* f = Fixture(shared, vocab);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(*ResolveImageTokenId(*f->qwen, int64_t{299}), 299);
  EXPECT_EQ(ResolveImageTokenId(*f->qwen, std::nullopt).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ResolveImageTokenId(*f->qwen, int64_t{-3}).ok());
  EXPECT_THAT(EncodeImagePrompt(*f->qwen, "no image here", 5).status().message(), HasSubstr("no <image>"));
  EXPECT_THAT(EncodeImagePrompt(*f->qwen, "<image><image>", 5).status().message(),
              HasSubstr("more than one"));
  EXPECT_FALSE(EncodeImagePrompt(*f->qwen, "<image>", -1).ok());
  EXPECT_FALSE(EncodeImagePrompt(*f->qwen, "<image>\xFF", 5).ok());
}

}  // namespace
}  // namespace mineru::engine
