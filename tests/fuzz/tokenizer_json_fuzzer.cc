// libFuzzer target: loading a tokenizer.json (engine/tokenizer_json + engine/tokenizer) and, when it
// loads, encoding and decoding a text with it. Input: the JSON text, optionally followed by a NUL
// byte and the text to encode. Any input must give a tokenizer or an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos
                                    ? std::string_view("Hi <|x|> 12 'll  \n\tw\u00e9 \u4e2d")
                                    : input.substr(nul + 1);
  auto tokenizer = mineru::engine::Tokenizer::FromJson(json, "fuzz/tokenizer.json");
  if (!tokenizer.ok()) return 0;
  auto ids = (*tokenizer)->Encode(text);
  if (!ids.ok()) return 0;
  auto decoded = (*tokenizer)->Decode(*ids);
  if (!decoded.ok()) __builtin_trap();  // ids from Encode always decode
  return 0;
}
