#include "engine/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <cctype>

namespace mineru::engine {
namespace {

// ECMAScript WhiteSpace + LineTerminator, as a character class body.
constexpr std::string_view kJsWhiteSpace =
    "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}"
    "\\x{3000}\\x{FEFF}";

std::string Pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof(buffer)) < 0) return "PCRE2 error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Per-thread match state: match data for one pair and a JIT stack that can grow to 8 MiB.
struct MatchState {
  pcre2_match_data* data = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;
  MatchState() {
    data = pcre2_match_data_create(1, nullptr);
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
    if (context != nullptr && stack != nullptr) pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~MatchState() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
  MatchState(const MatchState&) = delete;
  MatchState& operator=(const MatchState&) = delete;
};

MatchState& ThreadMatchState() {
  thread_local MatchState state;
  return state;
}

}  // namespace

Result<std::string> TranslateSplitPattern(std::string_view p) {
  std::string out;
  out.reserve(p.size() * 2);
  std::vector<bool> caseless_stack;  // one entry per open group
  bool caseless = false;
  bool in_class = false;
  size_t class_body_start = 0;  // index in `p` where the class body begins
  const auto error = [&](size_t at, const std::string& what) {
    return Status(StatusCode::kUnimplemented,
                  "split pattern: " + what + " at offset " + std::to_string(at) + " is not supported");
  };
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size()) return InvalidArgument("split pattern: ends with a lone backslash");
      const char d = p[i + 1];
      if (d == 's' || d == 'S') {
        if (in_class) {
          if (d == 'S') return error(i, "\\S inside a character class");
          out.append(kJsWhiteSpace);
        } else {
          out.append(d == 's' ? "[" : "[^").append(kJsWhiteSpace).append("]");
        }
        ++i;
        continue;
      }
      if (d == 'Q') return error(i, "\\Q...\\E quoting");
      size_t end = i + 2;  // one past the escape
      if ((d == 'p' || d == 'P' || d == 'x' || d == 'N' || d == 'o' || d == 'u') && end < p.size() &&
          p[end] == '{') {
        const size_t close = p.find('}', end);
        if (close == std::string_view::npos)
          return InvalidArgument("split pattern: unterminated \\" + std::string(1, d) + "{");
        end = close + 1;
      } else if (d == 'p' || d == 'P') {
        end = std::min(p.size(), end + 1);
      } else if (d == 'x') {
        while (end < p.size() && end < i + 4 && std::isxdigit(static_cast<unsigned char>(p[end]))) ++end;
      }
      out.append(p.substr(i, end - i));
      i = end - 1;
      continue;
    }
    if (in_class) {
      if (c == ']' && i > class_body_start) in_class = false;
      if (caseless && IsAsciiLetter(c)) return error(i, "a letter in a character class inside (?i:...)");
      out.push_back(c);
      continue;
    }
    if (c == '[') {
      in_class = true;
      class_body_start = i + 1;
      if (class_body_start < p.size() && p[class_body_start] == '^') ++class_body_start;
      out.push_back(c);
      continue;
    }
    if (c == '(') {
      caseless_stack.push_back(caseless);
      if (p.substr(i, 4) == "(?i:") {
        caseless = true;
        out.append("(?:");
        i += 3;
        continue;
      }
      if (p.substr(i, 3) == "(?i" || p.substr(i, 4) == "(?-i") return error(i, "an inline case flag");
      // Named groups: copy the name untouched.
      size_t name_at = std::string_view::npos;
      if (p.substr(i, 4) == "(?P<")
        name_at = i + 4;
      else if (p.substr(i, 3) == "(?<" && i + 3 < p.size() && p[i + 3] != '=' && p[i + 3] != '!')
        name_at = i + 3;
      if (name_at != std::string_view::npos) {
        const size_t close = p.find('>', name_at);
        if (close == std::string_view::npos) return InvalidArgument("split pattern: unterminated group name");
        out.append(p.substr(i, close + 1 - i));
        i = close;
        continue;
      }
      out.push_back(c);
      continue;
    }
    if (c == ')') {
      if (caseless_stack.empty())
        return InvalidArgument("split pattern: unbalanced ')' at offset " + std::to_string(i));
      caseless = caseless_stack.back();
      caseless_stack.pop_back();
      out.push_back(c);
      continue;
    }
    if (caseless && IsAsciiLetter(c)) {
      const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      out.push_back('[');
      out.push_back(lower);
      out.push_back(upper);
      out.push_back(']');
      continue;
    }
    out.push_back(c);
  }
  if (in_class) return InvalidArgument("split pattern: unterminated character class");
  if (!caseless_stack.empty()) return InvalidArgument("split pattern: unbalanced '('");
  return out;
}

Result<std::unique_ptr<SplitPreTokenizer>> SplitPreTokenizer::Create(std::string_view pattern) {
  MINERU_ASSIGN_OR_RETURN(std::string translated, TranslateSplitPattern(pattern));
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                   PCRE2_UTF, &error_code, &error_offset, nullptr);
  if (code == nullptr) {
    return InvalidArgument("split pattern does not compile (" + Pcre2Message(error_code) + " at offset " +
                           std::to_string(error_offset) + " of the rewritten pattern)");
  }
  std::unique_ptr<SplitPreTokenizer> split(new SplitPreTokenizer());
  split->code_ = code;
  split->jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  return split;
}

SplitPreTokenizer::~SplitPreTokenizer() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

Result<bool> SplitPreTokenizer::NextMatch(std::string_view text, size_t pos, size_t* start,
                                          size_t* end) const {
  MatchState& state = ThreadMatchState();
  if (state.data == nullptr) return ResourceExhausted("split pattern: out of memory for match data");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  while (pos < text.size()) {
    const int rc = pcre2_match(static_cast<const pcre2_code*>(code_), subject, text.size(), pos,
                               PCRE2_NO_UTF_CHECK, state.data, state.context);
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc < 0) return ResourceExhausted("split pattern: regex match failed: " + Pcre2Message(rc));
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(state.data);
    if (ovector[1] > ovector[0]) {
      *start = ovector[0];
      *end = ovector[1];
      return true;
    }
    // An empty match is dropped and the search resumes one character later (as JS matchAll does).
    pos = ovector[0] + 1;
    while (pos < text.size() && (static_cast<uint8_t>(text[pos]) & 0xC0) == 0x80) ++pos;
  }
  return false;
}

Result<std::vector<std::string_view>> SplitPreTokenizer::SplitToVector(std::string_view text) const {
  std::vector<std::string_view> pieces;
  MINERU_RETURN_IF_ERROR(Split(text, [&](std::string_view piece) { pieces.push_back(piece); }));
  return pieces;
}

}  // namespace mineru::engine
