#include "engine/tokenizer_json.h"

#include <nlohmann/json.hpp>

#include "engine/byte_level_bpe.h"
#include "engine/pretokenizer.h"

namespace mineru::engine {
namespace {

using Json = nlohmann::json;

Status Bad(const std::string& key, const std::string& what) { return InvalidArgument(key + ": " + what); }
Status Unsupported(const std::string& key, const std::string& what) {
  return Status(StatusCode::kUnimplemented, key + ": " + what + " is not supported");
}

std::string TypeOf(const Json& j, const std::string& key) {
  if (!j.is_object()) return "";
  auto it = j.find("type");
  return it != j.end() && it->is_string() ? it->get<std::string>() : "<" + key + ".type missing>";
}

// Optional boolean member; absent or null -> `fallback`.
Result<bool> OptionalBool(const Json& obj, const char* name, const std::string& key, bool fallback) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return Bad(key + "." + name, "must be true or false");
  return it->get<bool>();
}

Status ParseModel(const Json& model, TokenizerSpec* spec) {
  if (!model.is_object()) return Bad("model", "missing or not an object");
  if (auto t = model.find("type"); t != model.end() && !(t->is_string() && t->get<std::string>() == "BPE")) {
    return Unsupported("model.type", "model type " + t->dump());
  }
  MINERU_ASSIGN_OR_RETURN(bool byte_fallback, OptionalBool(model, "byte_fallback", "model", false));
  if (byte_fallback) return Unsupported("model.byte_fallback", "byte fallback");
  if (auto d = model.find("dropout"); d != model.end() && !d->is_null()) {
    if (!d->is_number() || d->get<double>() != 0.0) return Unsupported("model.dropout", "BPE dropout");
  }
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    auto a = model.find(affix);
    if (a == model.end() || a->is_null()) continue;
    if (!a->is_string()) return Bad(std::string("model.") + affix, "must be a string");
    if (!a->get<std::string>().empty())
      return Unsupported(std::string("model.") + affix, "a non-empty affix");
  }
  MINERU_ASSIGN_OR_RETURN(spec->ignore_merges, OptionalBool(model, "ignore_merges", "model", false));

  auto vocab = model.find("vocab");
  if (vocab == model.end() || !vocab->is_object()) return Bad("model.vocab", "missing or not an object");
  spec->vocab.reserve(vocab->size());
  for (auto it = vocab->begin(); it != vocab->end(); ++it) {
    if (!it->is_number_integer()) return Bad("model.vocab[\"" + it.key() + "\"]", "id is not an integer");
    spec->vocab.emplace_back(it.key(), it->get<int64_t>());
  }

  auto merges = model.find("merges");
  if (merges == model.end() || !merges->is_array()) return Bad("model.merges", "missing or not an array");
  spec->merges.reserve(merges->size());
  for (size_t i = 0; i < merges->size(); ++i) {
    const Json& m = (*merges)[i];
    const std::string key = "model.merges[" + std::to_string(i) + "]";
    if (m.is_string()) {
      const std::string& s = m.get_ref<const std::string&>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 >= s.size() ||
          s.find(' ', space + 1) != std::string::npos) {
        return Bad(key, "expected \"LEFT RIGHT\"");
      }
      spec->merges.emplace_back(s.substr(0, space), s.substr(space + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string() &&
               !m[0].get_ref<const std::string&>().empty() && !m[1].get_ref<const std::string&>().empty()) {
      spec->merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      return Bad(key, "expected \"LEFT RIGHT\" or [LEFT, RIGHT]");
    }
  }
  return Status::Ok();
}

Status ParseAddedTokens(const Json& root, TokenizerSpec* spec) {
  auto added = root.find("added_tokens");
  if (added == root.end() || added->is_null()) return Status::Ok();
  if (!added->is_array()) return Bad("added_tokens", "not an array");
  for (size_t i = 0; i < added->size(); ++i) {
    const Json& a = (*added)[i];
    const std::string key = "added_tokens[" + std::to_string(i) + "]";
    if (!a.is_object()) return Bad(key, "not an object");
    auto id = a.find("id");
    if (id == a.end() || !id->is_number_integer()) return Bad(key + ".id", "missing or not an integer");
    const int64_t id_value = id->get<int64_t>();
    if (id_value < 0 || id_value > kMaxTokenId) {
      return Bad(key + ".id", std::to_string(id_value) + " outside [0, " + std::to_string(kMaxTokenId) + "]");
    }
    auto content = a.find("content");
    if (content == a.end() || !content->is_string() || content->get_ref<const std::string&>().empty()) {
      return Bad(key + ".content", "missing, empty or not a string");
    }
    AddedToken token;
    token.id = static_cast<int32_t>(id_value);
    token.content = content->get<std::string>();
    MINERU_ASSIGN_OR_RETURN(token.special, OptionalBool(a, "special", key, false));
    MINERU_ASSIGN_OR_RETURN(token.lstrip, OptionalBool(a, "lstrip", key, false));
    MINERU_ASSIGN_OR_RETURN(token.rstrip, OptionalBool(a, "rstrip", key, false));
    spec->added_tokens.push_back(std::move(token));
  }
  return Status::Ok();
}

Status ParseNormalizer(const Json& n, const std::string& key, TokenizerSpec* spec) {
  if (n.is_null()) return Status::Ok();
  const std::string type = TypeOf(n, key);
  if (type == "NFC") {
    spec->nfc = true;
    return Status::Ok();
  }
  if (type == "Sequence") {
    auto list = n.find("normalizers");
    if (list == n.end() || !list->is_array()) return Bad(key + ".normalizers", "missing or not an array");
    for (size_t i = 0; i < list->size(); ++i) {
      MINERU_RETURN_IF_ERROR(
          ParseNormalizer((*list)[i], key + ".normalizers[" + std::to_string(i) + "]", spec));
    }
    return Status::Ok();
  }
  return Unsupported(key + ".type", "normalizer \"" + type + "\"");
}

Status SetPattern(std::string pattern, const std::string& key, TokenizerSpec* spec) {
  if (spec->split_pattern) return Unsupported(key, "a second splitting pre-tokenizer");
  spec->split_pattern = std::move(pattern);
  return Status::Ok();
}

// Escapes a literal for use inside a regex.
std::string EscapeRegex(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

Status ParsePreTokenizer(const Json& p, const std::string& key, TokenizerSpec* spec) {
  if (p.is_null()) return Status::Ok();
  const std::string type = TypeOf(p, key);
  if (type == "Sequence") {
    auto list = p.find("pretokenizers");
    if (list == p.end() || !list->is_array()) return Bad(key + ".pretokenizers", "missing or not an array");
    for (size_t i = 0; i < list->size(); ++i) {
      MINERU_RETURN_IF_ERROR(
          ParsePreTokenizer((*list)[i], key + ".pretokenizers[" + std::to_string(i) + "]", spec));
    }
    return Status::Ok();
  }
  if (type == "Split") {
    auto pattern = p.find("pattern");
    if (pattern == p.end() || !pattern->is_object()) return Bad(key + ".pattern", "missing or not an object");
    std::string regex;
    if (auto r = pattern->find("Regex"); r != pattern->end() && r->is_string()) {
      regex = r->get<std::string>();
    } else if (auto s = pattern->find("String"); s != pattern->end() && s->is_string()) {
      regex = EscapeRegex(s->get_ref<const std::string&>());
    } else {
      return Bad(key + ".pattern", "needs a string \"Regex\" or \"String\"");
    }
    if (regex.empty()) return Bad(key + ".pattern", "empty pattern");
    auto behavior = p.find("behavior");
    if (behavior == p.end() || !behavior->is_string() || behavior->get<std::string>() != "Isolated") {
      return Unsupported(key + ".behavior", "a behaviour other than \"Isolated\"");
    }
    MINERU_ASSIGN_OR_RETURN(bool invert, OptionalBool(p, "invert", key, false));
    if (invert) return Unsupported(key + ".invert", "invert = true");
    return SetPattern(std::move(regex), key, spec);
  }
  if (type == "ByteLevel") {
    MINERU_ASSIGN_OR_RETURN(bool prefix, OptionalBool(p, "add_prefix_space", key, false));
    if (prefix) return Unsupported(key + ".add_prefix_space", "add_prefix_space = true");
    MINERU_ASSIGN_OR_RETURN(bool use_regex, OptionalBool(p, "use_regex", key, true));
    if (use_regex) return SetPattern(std::string(kGpt2SplitPattern), key, spec);
    return Status::Ok();
  }
  return Unsupported(key + ".type", "pre-tokenizer \"" + type + "\"");
}

}  // namespace

Result<TokenizerSpec> ParseTokenizerJson(std::string_view json_text) {
  Json root;
  try {
    root = Json::parse(json_text);
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("not valid JSON: ") + e.what());
  }
  if (!root.is_object()) return InvalidArgument("the top level is not a JSON object");
  TokenizerSpec spec;
  auto model = root.find("model");
  if (model == root.end()) return Bad("model", "missing");
  MINERU_RETURN_IF_ERROR(ParseModel(*model, &spec));
  MINERU_RETURN_IF_ERROR(ParseAddedTokens(root, &spec));
  if (auto n = root.find("normalizer"); n != root.end()) {
    MINERU_RETURN_IF_ERROR(ParseNormalizer(*n, "normalizer", &spec));
  }
  if (auto p = root.find("pre_tokenizer"); p != root.end()) {
    MINERU_RETURN_IF_ERROR(ParsePreTokenizer(*p, "pre_tokenizer", &spec));
  }
  if (auto d = root.find("decoder"); d != root.end() && !d->is_null()) {
    const std::string type = TypeOf(*d, "decoder");
    if (type != "ByteLevel") return Unsupported("decoder.type", "decoder \"" + type + "\"");
  }
  return spec;
}

}  // namespace mineru::engine
