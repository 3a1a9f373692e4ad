// Base64 (RFC 4648, standard alphabet, '=' padding): the page images minerud sends to and takes from
// OpenAI-compatible servers as data: URLs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace mineru {

std::string Base64Encode(std::span<const uint8_t> bytes);
// Strict: only the standard alphabet, padding only at the end, length a multiple of 4 (no whitespace).
Result<std::vector<uint8_t>> Base64Decode(std::string_view text);

}  // namespace mineru
