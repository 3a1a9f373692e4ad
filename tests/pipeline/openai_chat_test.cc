// The chat-completions wire format: the request MinerU's client sends, and answers in vLLM's and
// SGLang's documented formats (testdata/, written from their API documentation), streamed and whole,
// fed in pieces of every size; garbage, error events, truncation and oversized answers are refused.
#include "pipeline/openai_chat.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "common/base64.h"
#include "tests/support/shared_data.h"

namespace mineru::pipeline {
namespace {

using nlohmann::json;

std::string ReadTestData(const std::string& name) {
  std::ifstream in(testing::SourceDir() / "tests/pipeline/testdata" / name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result<std::string> ParseStream(std::string_view body, size_t piece, uint64_t limit = 1 << 20) {
  ChatStreamParser parser(limit);
  for (size_t i = 0; i < body.size(); i += piece) {
    MINERU_RETURN_IF_ERROR(parser.Feed(body.substr(i, piece)));
  }
  MINERU_RETURN_IF_ERROR(parser.Finish());
  return parser.text();
}

TEST(OpenAiChatTest, RequestIsMineruClientsRequest) {
  const std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', 1, 2, 3};
  PageRequest r;
  r.model = "mineru2";
  r.png = png;
  r.sampling = MineruSampling(0);
  const json body = json::parse(BuildPageRequestBody(r));
  EXPECT_EQ(body["model"], "mineru2");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(
      body["messages"][0]["content"],
      "A conversation between a user and an LLM-based AI assistant. The assistant gives helpful and honest "
      "answers.");
  const json& user = body["messages"][1];
  EXPECT_EQ(user["role"], "user");
  ASSERT_EQ(user["content"].size(), 2u);
  EXPECT_EQ(user["content"][0]["type"], "image_url");
  const std::string url = user["content"][0]["image_url"]["url"];
  const std::string prefix = "data:image/png;base64,";
  ASSERT_TRUE(url.starts_with(prefix));
  auto decoded = Base64Decode(url.substr(prefix.size()));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, png);
  EXPECT_EQ(user["content"][1]["type"], "text");
  EXPECT_EQ(user["content"][1]["text"], "Document Parsing:");
  EXPECT_EQ(body["temperature"], 0.0);
  EXPECT_EQ(body["top_k"], 1);
  EXPECT_EQ(body["presence_penalty"], 0.0);
  EXPECT_EQ(body["frequency_penalty"], 0.0);
  EXPECT_EQ(body["max_tokens"], 16384);
  EXPECT_EQ(body["skip_special_tokens"], false);
  EXPECT_EQ(body["vllm_xargs"]["no_repeat_ngram_size"], 100);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(MineruSampling(512).max_tokens, 512);
}

TEST(OpenAiChatTest, VllmAndSglangStreamsParseInPiecesOfAnySize) {
  const std::string want = ReadTestData("model_text.txt");
  ASSERT_FALSE(want.empty());
  for (const char* name : {"vllm_stream.txt", "sglang_stream.txt"}) {
    const std::string body = ReadTestData(name);
    for (size_t piece : {size_t{1}, size_t{2}, size_t{7}, size_t{64}, size_t{4096}, body.size()}) {
      auto text = ParseStream(body, piece);
      ASSERT_TRUE(text.ok()) << name << " piece " << piece << ": " << text.status().ToString();
      EXPECT_EQ(*text, want) << name << " piece " << piece;
    }
  }
}

TEST(OpenAiChatTest, WholeAnswersParse) {
  const std::string want = ReadTestData("model_text.txt");
  for (const char* name : {"vllm_completion.json", "sglang_completion.json"}) {
    auto text = ParseChatCompletion(ReadTestData(name), 1 << 20);
    ASSERT_TRUE(text.ok()) << name << ": " << text.status().ToString();
    EXPECT_EQ(*text, want) << name;
  }
}

TEST(OpenAiChatTest, ModelListAndErrorBodies) {
  auto id = ParseModelList(ReadTestData("vllm_models.json"));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, "mineru2");
  EXPECT_FALSE(ParseModelList(R"({"object":"list","data":[]})").ok());
  EXPECT_FALSE(ParseModelList("<html>").ok());
  EXPECT_EQ(ErrorBodyMessage(ReadTestData("vllm_error.json")), "The model `mineru` does not exist.");
  EXPECT_EQ(ErrorBodyMessage(R"({"error":{"message":"bad image","type":"invalid_request_error"}})"),
            "bad image");
  EXPECT_EQ(ErrorBodyMessage("Internal Server Error\n"), "Internal Server Error ");
  EXPECT_LE(ErrorBodyMessage(std::string(5000, 'x')).size(), 300u);
}

TEST(OpenAiChatTest, TruncatedStreamsAreRefusedAtEveryCut) {
  const std::string body = ReadTestData("vllm_stream.txt");
  // Every cut before the finishing chunk is incomplete; the cut inside [DONE] after it is not.
  const size_t finish = body.find("\"finish_reason\":\"stop\"");
  ASSERT_NE(finish, std::string::npos);
  const size_t finish_event_end = body.find("\n\n", finish) + 2;
  for (size_t cut = 0; cut < body.size(); cut += 97) {
    auto text = ParseStream(body.substr(0, cut), 13);
    if (cut < finish_event_end - 1) {
      ASSERT_FALSE(text.ok()) << "cut at " << cut;
      EXPECT_EQ(text.status().code(), StatusCode::kDataLoss) << text.status().ToString();
    }
  }
}

TEST(OpenAiChatTest, GarbageErrorsAndOversizedAnswersAreRefused) {
  struct Case {
    std::string body;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {"<html><body>502 Bad Gateway</body></html>\n", StatusCode::kDataLoss},
      {"data: {not json}\n\n", StatusCode::kDataLoss},
      {"data: [1,2,3]\n\n", StatusCode::kDataLoss},
      {"data: {\"object\":\"chat.completion.chunk\"}\n\n", StatusCode::kDataLoss},
      {"data: {\"choices\":[{\"delta\":{\"content\":7}}]}\n\n", StatusCode::kDataLoss},
      {"data: {\"error\":{\"message\":\"CUDA out of memory\",\"code\":500}}\n\n", StatusCode::kUnavailable},
      {"data: {\"object\":\"error\",\"message\":\"engine dead\"}\n\n", StatusCode::kUnavailable},
      {"data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"abort\"}]}\n\n",
       StatusCode::kUnavailable},
      {"data: {\"choices\":[{\"delta\":{\"content\":\"" + std::string(3000, 'a') + "\"}}]}\n\n",
       StatusCode::kResourceExhausted},
      {std::string(3 << 20, 'x'), StatusCode::kResourceExhausted},
  };
  for (const Case& c : cases) {
    auto text = ParseStream(c.body, 100, /*limit=*/2000);
    ASSERT_FALSE(text.ok()) << c.body.substr(0, 80);
    EXPECT_EQ(text.status().code(), c.code) << c.body.substr(0, 80) << ": " << text.status().ToString();
  }
  EXPECT_FALSE(ParseChatCompletion("{\"choices\":[]}", 100).ok());
  EXPECT_EQ(ParseChatCompletion(ReadTestData("vllm_completion.json"), 100).status().code(),
            StatusCode::kResourceExhausted);
}

TEST(OpenAiChatTest, CommentsKeepAlivesAndFieldsAreSkipped) {
  const std::string body =
      ": keep-alive\n\nevent: message\nid: 1\ndata: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\n\n"
      "data: "
      "{\"choices\":[]}\n\ndata:{\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"length\"}]}"
      "\n\ndata: [DONE]\n\ndata: anything after done\n\n";
  auto text = ParseStream(body, 5);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "abc");
}

}  // namespace
}  // namespace mineru::pipeline
