#include "engine/tokenizer.h"

#include <utf8proc.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/tokenizer_utf8.h"

namespace mineru::engine {
namespace {

// ECMAScript white space (String.prototype.trim), used for lstrip/rstrip of added tokens.
bool IsJsWhiteSpace(char32_t c) {
  switch (c) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
    case 0xFEFF:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

std::string_view TrimStart(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t next = pos;
    if (!IsJsWhiteSpace(NextCodePoint(s, &next))) break;
    pos = next;
  }
  return s.substr(pos);
}

std::string_view TrimEnd(std::string_view s) {
  size_t keep = 0;  // end of the last non-space character
  size_t pos = 0;
  while (pos < s.size()) {
    const char32_t c = NextCodePoint(s, &pos);
    if (!IsJsWhiteSpace(c)) keep = pos;
  }
  return s.substr(0, keep);
}

// Characters below U+0300 are starters that never combine with what precedes them, so NFC works
// independently on both sides of each of them. Only stretches with a character at or above U+0300
// (UTF-8 lead byte 0xCC or more), plus the low character before them (it may compose with what
// follows), need the normaliser.
bool IsHighLead(char c) { return static_cast<uint8_t>(c) >= 0xCC; }
bool IsCharStart(char c) { return (static_cast<uint8_t>(c) & 0xC0) != 0x80; }

Status AppendNfc(std::string_view text, std::string* out) {
  utf8proc_uint8_t* composed = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &composed,
                                          static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) {
    std::free(composed);
    return InvalidArgument(std::string("NFC normalisation failed: ") + utf8proc_errmsg(n));
  }
  out->append(reinterpret_cast<const char*>(composed), static_cast<size_t>(n));
  std::free(composed);
  return Status::Ok();
}

// NFC of `text` into `out`; false (and `out` untouched) when NFC cannot change anything.
Result<bool> NormalizeNfc(std::string_view text, std::string* out) {
  size_t i = 0;
  while (i < text.size() && !IsHighLead(text[i])) ++i;
  if (i == text.size()) return false;
  size_t copied = 0;     // text[0, copied) is in `out`
  size_t low_start = 0;  // start of the last character below U+0300 seen
  bool have_low = false;
  for (size_t pos = 0; pos < text.size();) {
    if (!IsHighLead(text[pos])) {
      low_start = pos;
      have_low = true;
      ++pos;
      while (pos < text.size() && !IsCharStart(text[pos])) ++pos;
      continue;
    }
    const size_t begin = have_low ? low_start : copied;
    size_t end = pos;
    while (end < text.size()) {  // up to the next character below U+0300
      if (IsCharStart(text[end]) && !IsHighLead(text[end])) break;
      ++end;
    }
    out->append(text.substr(copied, begin - copied));
    MINERU_RETURN_IF_ERROR(AppendNfc(text.substr(begin, end - begin), out));
    copied = end;
    have_low = false;
    pos = end;
  }
  out->append(text.substr(copied));
  return true;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("tokenizer file " + path.string() + " cannot be opened");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Status(StatusCode::kIoError, "tokenizer file " + path.string() + ": read failed");
  return FromJson(buffer.str(), path.string());
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(std::string_view json_text,
                                                       std::string_view source_name) {
  auto spec = ParseTokenizerJson(json_text);
  if (!spec.ok()) return spec.status().WithContext(source_name);
  auto tokenizer = FromSpec(std::move(spec).value());
  if (!tokenizer.ok()) return tokenizer.status().WithContext(source_name);
  return tokenizer;
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromSpec(TokenizerSpec spec) {
  std::unique_ptr<Tokenizer> t(new Tokenizer());
  ByteLevelBpe::Options bpe_options;
  bpe_options.ignore_merges = spec.ignore_merges;
  MINERU_ASSIGN_OR_RETURN(t->bpe_, ByteLevelBpe::Create(spec.vocab, spec.merges, bpe_options));
  if (spec.split_pattern) {
    auto split = SplitPreTokenizer::Create(*spec.split_pattern);
    if (!split.ok()) return split.status().WithContext("pre_tokenizer");
    t->split_ = std::move(split).value();
  }
  t->nfc_ = spec.nfc;
  t->id_limit_ = t->bpe_->id_limit();
  t->added_tokens_ = std::move(spec.added_tokens);
  std::vector<std::string> contents;
  for (size_t i = 0; i < t->added_tokens_.size(); ++i) {
    const AddedToken& a = t->added_tokens_[i];
    if (FindInvalidUtf8(a.content) != std::string_view::npos) {
      return InvalidArgument("added_tokens[" + std::to_string(i) + "].content is not valid UTF-8");
    }
    t->added_by_id_.emplace(a.id, i);
    t->added_by_content_.emplace(a.content, i);
    t->id_limit_ = std::max(t->id_limit_, a.id + 1);
    contents.push_back(a.content);
  }
  t->matcher_ = std::make_unique<AddedTokenMatcher>(contents);
  return t;
}

Result<std::vector<int32_t>> Tokenizer::Encode(std::string_view text) const {
  std::vector<int32_t> ids;
  MINERU_RETURN_IF_ERROR(EncodeAppend(text, &ids));
  return ids;
}

Status Tokenizer::EncodeAppend(std::string_view text, std::vector<int32_t>* ids) const {
  if (const size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    return InvalidArgument("text to encode is not valid UTF-8 (byte offset " + std::to_string(bad) + ")");
  }
  std::vector<AddedTokenMatcher::Section> sections = matcher_->Split(text);
  for (size_t i = 0; i < sections.size(); ++i) {
    if (sections[i].token < 0) continue;
    const AddedToken& a = added_tokens_[static_cast<size_t>(sections[i].token)];
    if (a.lstrip && i > 0 && sections[i - 1].token < 0) sections[i - 1].text = TrimEnd(sections[i - 1].text);
    if (a.rstrip && i + 1 < sections.size() && sections[i + 1].token < 0) {
      sections[i + 1].text = TrimStart(sections[i + 1].text);
    }
  }
  const size_t original_size = ids->size();
  for (const auto& section : sections) {
    if (section.token >= 0) {
      ids->push_back(added_tokens_[static_cast<size_t>(section.token)].id);
      continue;
    }
    if (Status s = EncodePlain(section.text, ids); !s.ok()) {
      ids->resize(original_size);
      return s;
    }
  }
  return Status::Ok();
}

Status Tokenizer::EncodePlain(std::string_view text, std::vector<int32_t>* ids) const {
  if (text.empty()) return Status::Ok();
  std::string normalized;
  if (nfc_) {
    MINERU_ASSIGN_OR_RETURN(bool changed, NormalizeNfc(text, &normalized));
    if (changed) text = normalized;
  }
  if (!split_) {
    bpe_->EncodeWord(text, ids);
    return Status::Ok();
  }
  return split_->Split(text, [&](std::string_view piece) { bpe_->EncodeWord(piece, ids); });
}

Result<std::string> Tokenizer::Decode(std::span<const int32_t> ids) const {
  std::string out;
  std::string bytes;  // the current run of vocabulary tokens
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (auto it = added_by_id_.find(id); it != added_by_id_.end()) {
      out.append(DecodeUtf8Lossy(bytes));
      bytes.clear();
      out.append(added_tokens_[it->second].content);
      continue;
    }
    const std::string* token = bpe_->TokenBytes(id);
    if (token == nullptr) {
      return OutOfRange("token id " + std::to_string(id) + " at position " + std::to_string(i) +
                        " is not in the vocabulary (ids go up to " + std::to_string(id_limit_ - 1) + ")");
    }
    bytes.append(*token);
  }
  out.append(DecodeUtf8Lossy(bytes));
  return out;
}

std::optional<int32_t> Tokenizer::AddedTokenId(std::string_view content) const {
  auto it = added_by_content_.find(std::string(content));
  if (it == added_by_content_.end()) return std::nullopt;
  return added_tokens_[it->second].id;
}

std::optional<int32_t> Tokenizer::TokenId(std::string_view text) const {
  if (auto id = AddedTokenId(text)) return id;
  return bpe_->FindBytes(text);
}

std::optional<std::string> Tokenizer::TokenPiece(int32_t id) const {
  if (auto it = added_by_id_.find(id); it != added_by_id_.end()) return added_tokens_[it->second].content;
  const std::string* bytes = bpe_->TokenBytes(id);
  if (bytes == nullptr) return std::nullopt;
  return BytesToByteLevel(*bytes);
}

const std::string* Tokenizer::TokenBytes(int32_t id) const {
  if (added_by_id_.count(id) != 0) return nullptr;
  return bpe_->TokenBytes(id);
}

bool Tokenizer::IsSpecialToken(int32_t id) const {
  auto it = added_by_id_.find(id);
  return it != added_by_id_.end() && added_tokens_[it->second].special;
}

}  // namespace mineru::engine
