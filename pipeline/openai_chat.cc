#include "pipeline/openai_chat.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/base64.h"
#include "engine/model_config.h"
#include "engine/prompt_template.h"

namespace mineru::pipeline {
namespace {

using nlohmann::json;

// A line of the event stream longer than this (beyond the answer's own limit) is not an answer.
constexpr uint64_t kLineSlackBytes = 1 << 20;

std::string Shorten(std::string_view text) {
  std::string out(text.substr(0, 300));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out;
}

// An error object inside a body or an event: {"error": {...}} / {"error": "..."} / {"object": "error"}.
bool ErrorIn(const json& j, std::string* message) {
  if (!j.is_object()) return false;
  if (j.contains("error") && !j["error"].is_null()) {
    const json& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      *message = e["message"].get<std::string>();
    } else if (e.is_string()) {
      *message = e.get<std::string>();
    } else {
      *message = e.dump();
    }
    return true;
  }
  if (j.value("object", "") == "error") {
    *message = j.contains("message") && j["message"].is_string() ? j["message"].get<std::string>() : j.dump();
    return true;
  }
  return false;
}

Status AppendText(std::string* text, std::string_view more, uint64_t max_bytes) {
  if (text->size() + more.size() > max_bytes) {
    return ResourceExhausted("the server's answer is longer than " + std::to_string(max_bytes) +
                             " bytes, more than the token limit allows");
  }
  text->append(more);
  return Status::Ok();
}

}  // namespace

ChatSampling MineruSampling(int64_t max_new_tokens) {
  const engine::GenerationConfig defaults;
  ChatSampling s;
  s.max_tokens = max_new_tokens > 0 ? max_new_tokens : defaults.max_new_tokens;
  s.no_repeat_ngram_size = defaults.no_repeat_ngram_size;
  return s;
}

std::string BuildPageRequestBody(const PageRequest& r) {
  std::string url = "data:image/png;base64,";
  url += Base64Encode(r.png);
  json body = {
      {"model", r.model},
      {"messages",
       json::array({
           {{"role", "system"}, {"content", std::string(engine::kMineruSystemPrompt)}},
           {{"role", "user"},
            {"content", json::array({
                            {{"type", "image_url"}, {"image_url", {{"url", std::move(url)}}}},
                            {{"type", "text"}, {"text", std::string(engine::kDocumentParsingInstruction)}},
                        })}},
       })},
      {"temperature", r.sampling.temperature},
      {"top_p", r.sampling.top_p},
      {"top_k", r.sampling.top_k},
      {"presence_penalty", r.sampling.presence_penalty},
      {"frequency_penalty", r.sampling.frequency_penalty},
      {"max_tokens", r.sampling.max_tokens},
      {"skip_special_tokens", r.sampling.skip_special_tokens},
      {"vllm_xargs", {{"no_repeat_ngram_size", r.sampling.no_repeat_ngram_size}}},
      {"stream", r.stream},
  };
  return body.dump();
}

uint64_t MaxAnswerBytes(int64_t max_tokens) {
  return static_cast<uint64_t>(std::max<int64_t>(max_tokens, 1)) * 64 + 4096;
}

Status ChatStreamParser::Feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    if (pending_line_.size() + piece.size() > max_text_bytes_ + kLineSlackBytes) {
      return ResourceExhausted("the server sent an event-stream line longer than " +
                               std::to_string(max_text_bytes_ + kLineSlackBytes) + " bytes");
    }
    pending_line_.append(piece);
    if (nl == std::string_view::npos) break;
    bytes.remove_prefix(nl + 1);
    std::string line = std::move(pending_line_);
    pending_line_.clear();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    MINERU_RETURN_IF_ERROR(OnLine(line));
  }
  return Status::Ok();
}

Status ChatStreamParser::OnLine(std::string_view line) {
  if (line.empty()) return OnEvent();
  if (line.front() == ':') return Status::Ok();  // a comment (keep-alive)
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (event_has_data_) event_data_ += '\n';
    if (event_data_.size() + value.size() > max_text_bytes_ + kLineSlackBytes) {
      return ResourceExhausted("the server sent an event larger than " +
                               std::to_string(max_text_bytes_ + kLineSlackBytes) + " bytes");
    }
    event_data_.append(value);
    event_has_data_ = true;
    return Status::Ok();
  }
  if (field == "event" || field == "id" || field == "retry") return Status::Ok();
  return DataLoss("the server's answer is not an event stream (a line starts '" +
                  Shorten(line.substr(0, 40)) + "')");
}

Status ChatStreamParser::OnEvent() {
  if (!event_has_data_) return Status::Ok();
  std::string data = std::move(event_data_);
  event_data_.clear();
  event_has_data_ = false;
  if (saw_done_) return Status::Ok();  // nothing counts after [DONE]
  if (data == "[DONE]") {
    saw_done_ = true;
    done_ = true;
    if (finish_reason_.empty()) finish_reason_ = "stop";
    return Status::Ok();
  }
  return OnChunk(data);
}

Status ChatStreamParser::OnChunk(std::string_view json_text) {
  json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return DataLoss("the server sent an event that is not a JSON object: " + Shorten(json_text));
  }
  std::string message;
  if (ErrorIn(j, &message)) return Unavailable("the server reported an error: " + Shorten(message));
  if (!j.contains("choices") || !j["choices"].is_array()) {
    return DataLoss("the server sent a chunk without choices: " + Shorten(json_text));
  }
  const json& choices = j["choices"];
  if (choices.empty()) return Status::Ok();  // a usage chunk
  const json& c = choices[0];
  if (!c.is_object()) return DataLoss("the server sent a choice that is not an object");
  if (c.contains("delta") && c["delta"].is_object()) {
    const json& delta = c["delta"];
    if (delta.contains("content") && delta["content"].is_string()) {
      MINERU_RETURN_IF_ERROR(
          AppendText(&text_, delta["content"].get_ref<const std::string&>(), max_text_bytes_));
    } else if (delta.contains("content") && !delta["content"].is_null()) {
      return DataLoss("the server sent a delta whose content is not text");
    }
  } else if (c.contains("delta") && !c["delta"].is_null()) {
    return DataLoss("the server sent a choice whose delta is not an object");
  }
  if (c.contains("finish_reason") && !c["finish_reason"].is_null()) {
    const json& f = c["finish_reason"];
    const std::string reason = f.is_string() ? f.get<std::string>() : f.dump();
    if (reason != "stop" && reason != "length") {
      return Unavailable("the server ended the answer early (finish_reason " + Shorten(reason) + ")");
    }
    finish_reason_ = reason;
    done_ = true;
  }
  return Status::Ok();
}

Status ChatStreamParser::Finish() {
  if (!pending_line_.empty()) {
    std::string line = std::move(pending_line_);
    pending_line_.clear();
    MINERU_RETURN_IF_ERROR(OnLine(line));
  }
  MINERU_RETURN_IF_ERROR(OnEvent());
  if (!done_) {
    return DataLoss("the server's answer stopped before it was complete (" + std::to_string(text_.size()) +
                    " bytes, no finish_reason)");
  }
  return Status::Ok();
}

Result<std::string> ParseChatCompletion(std::string_view body, uint64_t max_text_bytes) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return DataLoss("the server's answer is not a JSON object: " + Shorten(body));
  }
  std::string message;
  if (ErrorIn(j, &message)) return Unavailable("the server reported an error: " + Shorten(message));
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
      !j["choices"][0].is_object()) {
    return DataLoss("the server's answer has no choices");
  }
  const json& c = j["choices"][0];
  if (!c.contains("message") || !c["message"].is_object() || !c["message"].contains("content") ||
      !c["message"]["content"].is_string()) {
    return DataLoss("the server's answer has no message text");
  }
  if (c.contains("finish_reason") && c["finish_reason"].is_string()) {
    const std::string reason = c["finish_reason"].get<std::string>();
    if (reason != "stop" && reason != "length") {
      return Unavailable("the server ended the answer early (finish_reason " + Shorten(reason) + ")");
    }
  }
  std::string text;
  MINERU_RETURN_IF_ERROR(
      AppendText(&text, c["message"]["content"].get_ref<const std::string&>(), max_text_bytes));
  return text;
}

Result<std::string> ParseModelList(std::string_view body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array()) {
    return DataLoss("GET /v1/models did not answer a model list: " + Shorten(body));
  }
  for (const json& m : j["data"]) {
    if (m.is_object() && m.contains("id") && m["id"].is_string() && !m["id"].get<std::string>().empty()) {
      return m["id"].get<std::string>();
    }
  }
  return DataLoss("GET /v1/models lists no model");
}

std::string ErrorBodyMessage(std::string_view body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message;
  if (!j.is_discarded() && ErrorIn(j, &message)) return Shorten(message);
  if (!j.is_discarded() && j.is_object() && j.contains("message") && j["message"].is_string()) {
    return Shorten(j["message"].get<std::string>());
  }
  return Shorten(body);
}

}  // namespace mineru::pipeline
