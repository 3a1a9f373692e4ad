#include "engine/tokenizer_utf8.h"

namespace mineru::engine {
namespace {

// Length of the well-formed sequence starting at `i`, or the length of its maximal ill-formed
// subpart as a negative number (at least 1 byte). Follows Unicode Table 3-7.
int SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  int need;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return -1;
  }
  int seen = 1;
  for (int k = 0; k < need; ++k) {
    const size_t at = i + 1 + k;
    if (at >= s.size()) return -seen;
    const uint8_t b = byte(at);
    const uint8_t l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
    if (b < l || b > h) return -seen;
    ++seen;
  }
  return seen;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    if (static_cast<uint8_t>(bytes[i]) < 0x80) {
      ++i;
      continue;
    }
    const int n = SequenceLength(bytes, i);
    if (n < 0) return i;
    i += static_cast<size_t>(n);
  }
  return std::string_view::npos;
}

char32_t NextCodePoint(std::string_view s, size_t* pos) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  size_t i = *pos;
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    *pos = i + 1;
    return b0;
  }
  if (b0 < 0xE0) {
    *pos = i + 2;
    return (char32_t(b0 & 0x1F) << 6) | (byte(i + 1) & 0x3F);
  }
  if (b0 < 0xF0) {
    *pos = i + 3;
    return (char32_t(b0 & 0x0F) << 12) | (char32_t(byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F);
  }
  *pos = i + 4;
  return (char32_t(b0 & 0x07) << 18) | (char32_t(byte(i + 1) & 0x3F) << 12) |
         (char32_t(byte(i + 2) & 0x3F) << 6) | (byte(i + 3) & 0x3F);
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string DecodeUtf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    const int n = SequenceLength(bytes, i);
    if (n > 0) {
      out.append(bytes.substr(i, static_cast<size_t>(n)));
      i += static_cast<size_t>(n);
    } else {
      out.append("\xEF\xBF\xBD");  // U+FFFD
      i += static_cast<size_t>(-n);
    }
  }
  return out;
}

size_t UnfinishedUtf8Tail(std::string_view bytes) {
  // A byte that starts a sequence is never a continuation, so decoding restarts there: the tail can
  // only begin at the last such byte, within the last three.
  for (size_t back = 1; back <= 3 && back <= bytes.size(); ++back) {
    const size_t at = bytes.size() - back;
    const uint8_t b = static_cast<uint8_t>(bytes[at]);
    if (b < 0xC0) continue;              // ASCII or a continuation byte
    if (b < 0xC2 || b > 0xF4) return 0;  // never starts a sequence: its subpart is already whole
    // Well-formed so far and cut by the end: SequenceLength ran out of bytes exactly at the end.
    return SequenceLength(bytes, at) == -static_cast<int>(back) ? back : 0;
  }
  return 0;
}

}  // namespace mineru::engine
