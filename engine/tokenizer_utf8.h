// UTF-8 helpers for the tokenizer: validation, code point iteration and lossy decoding of byte
// strings that BPE tokens produce (a token may end inside a multi-byte character).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mineru::engine {

// The byte offset of the first byte that does not start or continue a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF are ill-formed), or npos when `text`
// is valid UTF-8.
size_t FindInvalidUtf8(std::string_view bytes);

// Decodes one code point at `*pos` of valid UTF-8 and advances `*pos` past it.
char32_t NextCodePoint(std::string_view valid_utf8, size_t* pos);

// Appends the UTF-8 form of `cp` (must be a Unicode scalar value).
void AppendUtf8(char32_t cp, std::string* out);

// Bytes -> text the way the WHATWG Encoding standard decodes UTF-8 (what browsers and Node's
// TextDecoder do): every maximal ill-formed subpart becomes one U+FFFD.
std::string DecodeUtf8Lossy(std::string_view bytes);

// How many bytes at the end of `bytes` are a well-formed sequence that the end cuts short (1 to 3), or
// 0. Only such a tail decodes differently once more bytes follow: DecodeUtf8Lossy of the bytes before
// it, then of the tail with what follows, is DecodeUtf8Lossy of the whole.
size_t UnfinishedUtf8Tail(std::string_view bytes);

}  // namespace mineru::engine
