// The server side of the wire format: MinerU's request (as the client side builds it) is accepted and
// read back exactly; anything minerud could not honour is refused with the field named; the answers it
// writes are read back by the client side.
#include "pipeline/openai_chat_server.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace mineru::pipeline {
namespace {

using nlohmann::json;

const std::vector<uint8_t> kPng = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 1, 2, 3, 4};

json MineruRequest() {
  PageRequest r;
  r.model = "mineru2";
  r.png = kPng;
  r.sampling = MineruSampling(1000);
  return json::parse(BuildPageRequestBody(r));
}

TEST(OpenAiChatServerTest, AcceptsMineruClientsRequestAndReadsItBack) {
  auto in = ParsePageRequest(MineruRequest().dump(), 16384);
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_EQ(in->model, "mineru2");
  EXPECT_EQ(in->png, kPng);
  EXPECT_EQ(in->max_tokens, 1000);
  EXPECT_EQ(in->no_repeat_ngram_size, 100);
  EXPECT_TRUE(in->stream);
  EXPECT_EQ(in->user, "");
  json named = MineruRequest();
  named["user"] = "reader-7";
  auto with_user = ParsePageRequest(named.dump(), 16384);
  ASSERT_TRUE(with_user.ok()) << with_user.status().ToString();
  EXPECT_EQ(with_user->user, "reader-7");
  // Without the system message and the optional fields: the defaults.
  json bare = MineruRequest();
  bare["messages"].erase(0);
  for (const char* key : {"temperature", "top_p", "top_k", "presence_penalty", "frequency_penalty",
                          "max_tokens", "skip_special_tokens", "vllm_xargs", "stream"}) {
    bare.erase(key);
  }
  auto plain = ParsePageRequest(bare.dump(), 16384);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->max_tokens, 0);
  EXPECT_EQ(plain->no_repeat_ngram_size, -1);
  EXPECT_FALSE(plain->stream);
}

TEST(OpenAiChatServerTest, RefusesWhatItCannotHonourNamingTheField) {
  struct Case {
    std::function<void(json&)> change;
    std::string says;
  };
  const std::vector<Case> cases = {
      {[](json& r) { r["temperature"] = 0.7; }, "temperature"},
      {[](json& r) { r["presence_penalty"] = 0.5; }, "presence_penalty"},
      {[](json& r) { r["frequency_penalty"] = 1; }, "frequency_penalty"},
      {[](json& r) { r["repetition_penalty"] = 1.05; }, "repetition_penalty"},
      {[](json& r) { r["n"] = 2; }, "n must"},
      {[](json& r) { r["top_p"] = 0; }, "top_p"},
      {[](json& r) { r["top_k"] = 0; }, "top_k"},
      {[](json& r) { r["skip_special_tokens"] = true; }, "skip_special_tokens"},
      {[](json& r) { r["max_tokens"] = 20000; }, "max_tokens"},
      {[](json& r) { r["seed"] = 7; }, "unknown field 'seed'"},
      {[](json& r) { r["logit_bias"] = json::object(); }, "unknown field 'logit_bias'"},
      {[](json& r) { r["vllm_xargs"]["min_p"] = 0.1; }, "unknown vllm_xargs field 'min_p'"},
      {[](json& r) { r["vllm_xargs"]["no_repeat_ngram_size"] = -3; }, "no_repeat_ngram_size"},
      {[](json& r) { r["messages"][0]["content"] = "You are a pirate."; }, "system message"},
      {[](json& r) { r["messages"][1]["content"][1]["text"] = "Describe this image."; }, "Document Parsing:"},
      {[](json& r) { r["messages"][1]["content"][0]["image_url"]["url"] = "http://example.org/p.png"; },
       "data:image/png"},
      {[](json& r) { r["messages"][1]["content"][0]["image_url"]["url"] = "data:image/png;base64,@@@@"; },
       "base64"},
      {[](json& r) { r["messages"].push_back(r["messages"][1]); }, "one user message"},
      {[](json& r) { r["messages"][1]["content"].push_back(r["messages"][1]["content"][0]); },
       "image_url part"},
      {[](json& r) { r.erase("model"); }, "model"},
      {[](json& r) { r["user"] = 7; }, "user must be a string"},
      {[](json& r) { r["user"] = std::string(300, 'u'); }, "user must be a string of at most 256 bytes"},
  };
  for (const Case& c : cases) {
    json r = MineruRequest();
    c.change(r);
    auto in = ParsePageRequest(r.dump(), 16384);
    ASSERT_FALSE(in.ok()) << c.says;
    EXPECT_EQ(in.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(in.status().message().find(c.says), std::string::npos) << in.status().message();
  }
  for (std::string_view garbage : {"", "[]", "{", "null", "\"text\""}) {
    EXPECT_FALSE(ParsePageRequest(garbage, 16384).ok()) << garbage;
  }
}

TEST(OpenAiChatServerTest, AnswersReadBackOnTheClientSide) {
  const std::string text = "<|box_start|>1 2 3 4<|box_end|><|ref_start|>text<|ref_end|>\"quoted\" \\ é";
  std::string stream;
  for (size_t i = 0; i < text.size(); i += 5)
    stream += FormatStreamChunk("id1", "mineru2", 1, text.substr(i, 5));
  stream += FormatStreamChunk("id1", "mineru2", 1, "", "stop") + "data: [DONE]\n\n";
  ChatStreamParser parser(1 << 16);
  ASSERT_TRUE(parser.Feed(stream).ok());
  ASSERT_TRUE(parser.Finish().ok());
  EXPECT_EQ(parser.text(), text);
  EXPECT_EQ(parser.finish_reason(), "stop");
  auto whole = ParseChatCompletion(FormatCompletion("id1", "mineru2", 1, text, "length"), 1 << 16);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(*whole, text);
  EXPECT_EQ(ErrorBodyMessage(FormatError(400, "temperature must be 0")), "temperature must be 0");
}

}  // namespace
}  // namespace mineru::pipeline
