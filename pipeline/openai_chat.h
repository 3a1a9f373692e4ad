// The OpenAI chat-completions wire format for one MinerU page, as MinerU's own HTTP client sends it and
// vLLM and SGLang answer it: the request body (a system message, then the user turn holding the page as
// a data:image/png URL and the instruction; greedy sampling with MinerU's settings, special tokens kept,
// vLLM's no_repeat_ngram_size extra argument) and the answer, streamed as server-sent events or whole.
// Pure functions and a parser object: no I/O, no threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace mineru::pipeline {

// The sampling fields of a request.
struct ChatSampling {
  double temperature = 0.0;
  double top_p = 1.0;
  int64_t top_k = 1;
  double presence_penalty = 0.0;
  double frequency_penalty = 0.0;
  int64_t max_tokens = 0;
  int64_t no_repeat_ngram_size = 0;  // sent as vllm_xargs.no_repeat_ngram_size
  bool skip_special_tokens = false;
};

// MinerU 2.0's decoding: greedy (temperature 0, top_k 1), no penalties, special tokens kept, the
// no-repeat-ngram size and token limit of the model's generation defaults (engine/model_config.h);
// `max_new_tokens` > 0 overrides the limit.
ChatSampling MineruSampling(int64_t max_new_tokens);

struct PageRequest {
  std::string model;             // the server's model id (GET /v1/models)
  std::span<const uint8_t> png;  // the page image
  ChatSampling sampling;
  bool stream = true;
};

// The JSON body of POST /v1/chat/completions.
std::string BuildPageRequestBody(const PageRequest& request);

// The most bytes of answer text accepted for `max_tokens` tokens (a token decodes to a few bytes; the
// limit leaves room for the longest).
uint64_t MaxAnswerBytes(int64_t max_tokens);

// Reads a streamed answer (text/event-stream): `data: {chunk}` events, choices[0].delta.content
// appended, ended by `data: [DONE]` or a chunk with a finish_reason. Feed it the body as it arrives.
// Errors: kDataLoss for what is not the format (garbage, a stream cut short), kUnavailable for an
// error event from the server, kResourceExhausted past the size limit.
class ChatStreamParser {
 public:
  explicit ChatStreamParser(uint64_t max_text_bytes) : max_text_bytes_(max_text_bytes) {}
  Status Feed(std::string_view bytes);
  // The body has ended: fails unless the answer was complete.
  Status Finish();
  const std::string& text() const { return text_; }
  const std::string& finish_reason() const { return finish_reason_; }
  bool done() const { return done_; }

 private:
  Status OnLine(std::string_view line);
  Status OnEvent();
  Status OnChunk(std::string_view json_text);

  uint64_t max_text_bytes_;
  std::string pending_line_;
  std::string event_data_;
  bool event_has_data_ = false;
  std::string text_;
  std::string finish_reason_;
  bool done_ = false;
  bool saw_done_ = false;
};

// A whole (not streamed) chat.completion object: choices[0].message.content. Same error codes.
Result<std::string> ParseChatCompletion(std::string_view body, uint64_t max_text_bytes);

// GET /v1/models: the first model's id.
Result<std::string> ParseModelList(std::string_view body);

// The message of an error body ({"error": {"message"}}, vLLM's {"object": "error", "message"}, or the
// text itself), shortened to one line of at most 300 bytes.
std::string ErrorBodyMessage(std::string_view body);

}  // namespace mineru::pipeline
