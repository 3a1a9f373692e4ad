// The server side of the chat-completions wire format (openai_chat.h is the client side): what
// minerud accepts as a MinerU page request from an OpenAI client (MinerU's own, vLLM's or SGLang's
// clients) and how it writes the answer. Strict: a request minerud could not honour exactly — another
// prompt, sampling that is not greedy, a penalty, an unknown field — is refused (HTTP 400 with the
// message), never silently ignored. Pure functions: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "pipeline/openai_chat.h"

namespace mineru::pipeline {

struct IncomingPageRequest {
  std::string model;
  std::vector<uint8_t> png;           // the page image, still encoded
  int64_t max_tokens = 0;             // 0: the server's own limit
  int64_t no_repeat_ngram_size = -1;  // -1: the model's default
  bool stream = false;
  std::string user;  // the OpenAI `user` field: who the page is for (empty: not given)
};

// Parses and checks a POST /v1/chat/completions body. kInvalidArgument names the field and why.
Result<IncomingPageRequest> ParsePageRequest(std::string_view body, int64_t max_tokens_limit);

// One `data: {chunk}\n\n` event of a streamed answer: `content` as the delta, and finish_reason when
// not empty (then with an empty delta).
std::string FormatStreamChunk(std::string_view id, std::string_view model, int64_t created,
                              std::string_view content, std::string_view finish_reason = {});
// The whole (not streamed) answer.
std::string FormatCompletion(std::string_view id, std::string_view model, int64_t created,
                             std::string_view content, std::string_view finish_reason);
// An error body as vLLM writes it.
std::string FormatError(int http_status, std::string_view message);

}  // namespace mineru::pipeline
