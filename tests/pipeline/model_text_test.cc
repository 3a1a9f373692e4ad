#include "pipeline/model_text.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/support/shared_data.h"

namespace mineru::pipeline {
namespace {

const engine::Tokenizer* Qwen(const std::filesystem::path& vocab) {
  static std::unique_ptr<engine::Tokenizer> tokenizer = [&] {
    auto t = engine::Tokenizer::FromFile(vocab);
    return t.ok() ? std::move(*t) : nullptr;
  }();
  return tokenizer.get();
}

// Streams `ids` and returns the pieces (Finish's last, if any).
std::vector<std::string> Stream(const engine::Tokenizer& tokenizer, const std::vector<int64_t>& ids,
                                int64_t* dropped) {
  ModelTextStream stream(tokenizer);
  std::vector<std::string> pieces;
  for (int64_t id : ids) {
    std::string piece = stream.Push(id);
    if (!piece.empty()) pieces.push_back(std::move(piece));
  }
  std::string rest = stream.Finish();
  if (!rest.empty()) pieces.push_back(std::move(rest));
  *dropped = stream.dropped();
  return pieces;
}

std::string Join(const std::vector<std::string>& pieces) {
  std::string out;
  for (const std::string& p : pieces) out += p;
  return out;
}

TEST(ModelTextStreamTest, CharactersCutBetweenTokensComeWhole) {
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const engine::Tokenizer* tok = Qwen(vocab);
  ASSERT_NE(tok, nullptr);
  const std::string text = "<|box_start|>120 45 880 90<|box_end|>표 1 매출 😀 營業收入 text<|im_end|>";
  auto ids32 = tok->Encode(text);
  ASSERT_TRUE(ids32.ok()) << ids32.status().ToString();
  const std::vector<int64_t> ids(ids32->begin(), ids32->end());
  int64_t dropped = 0;
  const std::vector<std::string> pieces = Stream(*tok, ids, &dropped);
  EXPECT_EQ(Join(pieces), text);
  EXPECT_EQ(dropped, 0);
  EXPECT_GT(pieces.size(), 10u);
  for (const std::string& p : pieces) EXPECT_EQ(p.find("\xEF\xBF\xBD"), std::string::npos) << p;
}

// Whatever ids the model writes (byte tokens that make no character, added tokens, ids past the
// vocabulary), the pieces join to the page's text and drop the same ids.
TEST(ModelTextStreamTest, PiecesOfAnyIdsJoinToTheDecodedText) {
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const engine::Tokenizer* tok = Qwen(vocab);
  ASSERT_NE(tok, nullptr);
  // The 256 byte tokens are the first ids of the vocabulary; added tokens sit past the merges.
  const int32_t first_added = tok->added_tokens().front().id;
  uint32_t state = 7;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int round = 0; round < 300; ++round) {
    std::vector<int64_t> ids(1 + next() % 60);
    for (int64_t& id : ids) {
      const uint32_t kind = (next() >> 8) % 10;
      if (kind < 6) {
        id = (next() >> 8) % 256;  // single bytes
      } else if (kind < 8) {
        id = (next() >> 8) % static_cast<uint32_t>(first_added);
      } else if (kind < 9) {
        id = tok->added_tokens()[(next() >> 8) % tok->added_tokens().size()].id;
      } else {
        id = first_added + 100000 + (next() >> 8) % 100;  // no such token
      }
    }
    int64_t want_dropped = 0;
    Result<std::string> want = DecodeModelText(*tok, ids, &want_dropped);
    ASSERT_TRUE(want.ok());
    int64_t dropped = 0;
    EXPECT_EQ(Join(Stream(*tok, ids, &dropped)), *want) << "round " << round;
    EXPECT_EQ(dropped, want_dropped);
  }
}

}  // namespace
}  // namespace mineru::pipeline
