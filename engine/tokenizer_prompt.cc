#include "engine/tokenizer_prompt.h"

#include <algorithm>

namespace mineru::engine {
namespace {

// The placeholder as MinerU's prompt writes it (and as its tokenizer names the added token).
constexpr std::string_view kImageMarker = "<image>";

}  // namespace

Result<int32_t> ResolveImageTokenId(const Tokenizer& tokenizer,
                                    std::optional<int64_t> config_image_token_index) {
  const std::optional<int32_t> added = tokenizer.AddedTokenId(kImageMarker);
  if (config_image_token_index &&
      (*config_image_token_index < 0 || *config_image_token_index > kMaxTokenId)) {
    return InvalidArgument("image_token_index " + std::to_string(*config_image_token_index) +
                           " is out of range");
  }
  if (added && config_image_token_index && *added != *config_image_token_index) {
    return FailedPrecondition("the tokenizer's <image> token has id " + std::to_string(*added) +
                              " but config.json image_token_index is " +
                              std::to_string(*config_image_token_index));
  }
  if (added) return *added;
  if (config_image_token_index) return static_cast<int32_t>(*config_image_token_index);
  return NotFound(
      "no image token id: <image> is not an added token of the tokenizer and config.json has no "
      "image_token_index");
}

Result<std::vector<int32_t>> EncodeImagePrompt(const Tokenizer& tokenizer, std::string_view prompt,
                                               int32_t image_token_id) {
  if (image_token_id < 0)
    return InvalidArgument("image token id " + std::to_string(image_token_id) + " is negative");
  const size_t at = prompt.find(kImageMarker);
  if (at == std::string_view::npos) return InvalidArgument("the prompt has no <image> placeholder");
  const size_t after = at + kImageMarker.size();
  if (prompt.find(kImageMarker, after) != std::string_view::npos) {
    return InvalidArgument("the prompt has more than one <image> placeholder");
  }
  std::vector<int32_t> ids;
  MINERU_RETURN_IF_ERROR(tokenizer.EncodeAppend(prompt.substr(0, at), &ids));
  ids.push_back(image_token_id);
  MINERU_RETURN_IF_ERROR(tokenizer.EncodeAppend(prompt.substr(after), &ids));
  return ids;
}

std::optional<size_t> FindImageToken(const std::vector<int32_t>& ids, int32_t image_token_id) {
  auto it = std::find(ids.begin(), ids.end(), image_token_id);
  if (it == ids.end()) return std::nullopt;
  return static_cast<size_t>(it - ids.begin());
}

}  // namespace mineru::engine
