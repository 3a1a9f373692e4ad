#include "pipeline/openai_chat_server.h"

#include <nlohmann/json.hpp>
#include <set>

#include "common/base64.h"
#include "engine/prompt_template.h"

namespace mineru::pipeline {
namespace {

using nlohmann::json;

constexpr size_t kMaxUserBytes = 256;

Status Bad(const std::string& message) { return InvalidArgument(message); }

// A number field that must equal `want` when present (greedy decoding, no penalties).
Status ExpectNumber(const json& r, const char* key, double want, const char* why) {
  if (!r.contains(key) || r[key].is_null()) return Status::Ok();
  if (!r[key].is_number() || r[key].get<double>() != want) {
    return Bad(std::string(key) + " must be " + json(want).dump() + ": " + why);
  }
  return Status::Ok();
}

Result<std::vector<uint8_t>> ImageFrom(const json& part) {
  if (!part.contains("image_url")) return Bad("an image_url part has no image_url");
  const json& u = part["image_url"];
  const json& url = u.is_object() && u.contains("url") ? u["url"] : u;
  if (!url.is_string()) return Bad("image_url.url must be a string");
  const std::string& s = url.get_ref<const std::string&>();
  constexpr std::string_view kPrefix = "data:image/png;base64,";
  if (!s.starts_with(kPrefix))
    return Bad("the image must be a data:image/png;base64 URL (no fetching of URLs)");
  return Base64Decode(std::string_view(s).substr(kPrefix.size()));
}

}  // namespace

Result<IncomingPageRequest> ParsePageRequest(std::string_view body, int64_t max_tokens_limit) {
  json r = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (r.is_discarded() || !r.is_object()) return Bad("the body is not a JSON object");
  static const std::set<std::string, std::less<>> kKnown = {"model",
                                                            "messages",
                                                            "temperature",
                                                            "top_p",
                                                            "top_k",
                                                            "max_tokens",
                                                            "max_completion_tokens",
                                                            "presence_penalty",
                                                            "frequency_penalty",
                                                            "repetition_penalty",
                                                            "stream",
                                                            "stream_options",
                                                            "skip_special_tokens",
                                                            "vllm_xargs",
                                                            "n",
                                                            "user"};
  for (const auto& [key, value] : r.items()) {
    if (!kKnown.contains(key)) return Bad("unknown field '" + key + "': minerud does not honour it");
  }
  IncomingPageRequest out;
  if (!r.contains("model") || !r["model"].is_string()) return Bad("model must be a string");
  out.model = r["model"].get<std::string>();
  // Sampling: greedy and nothing else (top_p and top_k do not change a greedy choice).
  MINERU_RETURN_IF_ERROR(ExpectNumber(r, "temperature", 0, "minerud decodes greedily"));
  MINERU_RETURN_IF_ERROR(ExpectNumber(r, "presence_penalty", 0, "minerud applies no penalties"));
  MINERU_RETURN_IF_ERROR(ExpectNumber(r, "frequency_penalty", 0, "minerud applies no penalties"));
  MINERU_RETURN_IF_ERROR(ExpectNumber(r, "repetition_penalty", 1, "minerud applies no penalties"));
  MINERU_RETURN_IF_ERROR(ExpectNumber(r, "n", 1, "minerud writes one answer"));
  if (r.contains("top_p") && !r["top_p"].is_null() &&
      (!r["top_p"].is_number() || r["top_p"].get<double>() <= 0 || r["top_p"].get<double>() > 1)) {
    return Bad("top_p must be in (0, 1]");
  }
  if (r.contains("top_k") && !r["top_k"].is_null() &&
      (!r["top_k"].is_number_integer() ||
       (r["top_k"].get<int64_t>() < 1 && r["top_k"].get<int64_t>() != -1))) {
    return Bad("top_k must be a positive integer (or -1)");
  }
  if (r.contains("skip_special_tokens") && r["skip_special_tokens"] != false) {
    return Bad("skip_special_tokens must be false: MinerU's output is made of special tokens");
  }
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (!r.contains(key) || r[key].is_null()) continue;
    if (!r[key].is_number_integer() || r[key].get<int64_t>() < 1 ||
        r[key].get<int64_t>() > max_tokens_limit) {
      return Bad(std::string(key) + " must be an integer from 1 to " + std::to_string(max_tokens_limit));
    }
    out.max_tokens = r[key].get<int64_t>();
  }
  if (r.contains("vllm_xargs") && !r["vllm_xargs"].is_null()) {
    const json& x = r["vllm_xargs"];
    if (!x.is_object()) return Bad("vllm_xargs must be an object");
    for (const auto& [key, value] : x.items()) {
      if (key != "no_repeat_ngram_size") return Bad("unknown vllm_xargs field '" + key + "'");
      if (!value.is_number_integer() || value.get<int64_t>() < 0) {
        return Bad("vllm_xargs.no_repeat_ngram_size must be a non-negative integer");
      }
      out.no_repeat_ngram_size = value.get<int64_t>();
    }
  }
  if (r.contains("user") && !r["user"].is_null()) {
    if (!r["user"].is_string() || r["user"].get_ref<const std::string&>().size() > kMaxUserBytes) {
      return Bad("user must be a string of at most " + std::to_string(kMaxUserBytes) + " bytes");
    }
    out.user = r["user"].get<std::string>();
  }
  if (r.contains("stream") && !r["stream"].is_null()) {
    if (!r["stream"].is_boolean()) return Bad("stream must be true or false");
    out.stream = r["stream"].get<bool>();
  }
  // Messages: MinerU's system prompt (optional), then one user turn: the page and the instruction.
  if (!r.contains("messages") || !r["messages"].is_array() || r["messages"].empty()) {
    return Bad("messages must be a non-empty array");
  }
  const json& messages = r["messages"];
  size_t user_at = 0;
  if (messages[0].is_object() && messages[0].value("role", "") == "system") {
    if (messages[0].value("content", json()) != std::string(engine::kMineruSystemPrompt)) {
      return Bad("the system message must be MinerU's own");
    }
    user_at = 1;
  }
  if (messages.size() != user_at + 1 || !messages[user_at].is_object() ||
      messages[user_at].value("role", "") != "user") {
    return Bad("messages must be an optional system message and one user message");
  }
  const json& content = messages[user_at].value("content", json());
  if (!content.is_array() || content.size() != 2) {
    return Bad("the user message must hold an image_url part and a text part");
  }
  bool have_image = false, have_text = false;
  for (const json& part : content) {
    const std::string type = part.is_object() ? part.value("type", "") : "";
    if (type == "image_url" && !have_image) {
      MINERU_ASSIGN_OR_RETURN(out.png, ImageFrom(part));
      have_image = true;
    } else if (type == "text" && !have_text) {
      if (part.value("text", json()) != std::string(engine::kDocumentParsingInstruction)) {
        return Bad("the text part must be \"" + std::string(engine::kDocumentParsingInstruction) + "\"");
      }
      have_text = true;
    } else {
      return Bad("the user message must hold one image_url part and one text part");
    }
  }
  return out;
}

std::string FormatStreamChunk(std::string_view id, std::string_view model, int64_t created,
                              std::string_view content, std::string_view finish_reason) {
  json delta = json::object();
  if (finish_reason.empty()) delta["content"] = std::string(content);
  json choice = {{"index", 0},
                 {"delta", std::move(delta)},
                 {"logprobs", nullptr},
                 {"finish_reason", finish_reason.empty() ? json(nullptr) : json(std::string(finish_reason))}};
  json chunk = {{"id", std::string(id)},
                {"object", "chat.completion.chunk"},
                {"created", created},
                {"model", std::string(model)},
                {"choices", json::array({std::move(choice)})}};
  return "data: " + chunk.dump() + "\n\n";
}

std::string FormatCompletion(std::string_view id, std::string_view model, int64_t created,
                             std::string_view content, std::string_view finish_reason) {
  json answer = {
      {"id", std::string(id)},
      {"object", "chat.completion"},
      {"created", created},
      {"model", std::string(model)},
      {"choices", json::array({{{"index", 0},
                                {"message", {{"role", "assistant"}, {"content", std::string(content)}}},
                                {"logprobs", nullptr},
                                {"finish_reason", std::string(finish_reason)}}})},
  };
  return answer.dump();
}

std::string FormatError(int http_status, std::string_view message) {
  return json{{"object", "error"},
              {"message", std::string(message)},
              {"type", http_status >= 500 ? "InternalServerError" : "BadRequestError"},
              {"code", http_status}}
      .dump();
}

}  // namespace mineru::pipeline
