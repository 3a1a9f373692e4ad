// Compares the tokenizer with the JavaScript reference (npm @lenml/tokenizers, the implementation
// the golden ids come from) on strings beyond the golden set, including random Unicode drawn with
// a fixed seed. Skips when node or the package is missing (fails under MINERU_REQUIRE_SHARED=1).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>

#include "engine/tokenizer.h"
#include "engine/tokenizer_utf8.h"
#include "tests/engine/input_test_util.h"
#include "tests/support/shared_data.h"

namespace mineru::engine {
namespace {

using Json = nlohmann::json;

// The folder holding node_modules/@lenml/tokenizers, as scripts/install-deps lays it out.
std::optional<std::filesystem::path> JsTokenizersDir() {
  std::filesystem::path dir;
  if (const char* env = std::getenv("MINERU_JS_TOKENIZERS_DIR"); env != nullptr && env[0] != '\0') {
    dir = env;
  } else if (const char* cache = std::getenv("MINERU_CACHE_DIR"); cache != nullptr && cache[0] != '\0') {
    dir = std::filesystem::path(cache) / "js-tokenizers";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    dir = std::filesystem::path(home) / ".cache/minerud/js-tokenizers";
  } else {
    return std::nullopt;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(dir / "node_modules/@lenml/tokenizers/package.json", ec))
    return std::nullopt;
  if (std::system("node --version > /dev/null 2>&1") != 0) return std::nullopt;
  return dir;
}

void AppendCodePoint(char32_t cp, std::string* out) { AppendUtf8(cp, out); }

// Random text mixing scripts, white space of every kind, combining marks (NFC), digits, emoji,
// contractions and (partial) special tokens.
std::string RandomText(std::mt19937& rng, int max_pieces) {
  static const std::vector<std::pair<char32_t, char32_t>> kRanges = {
      {0x20, 0x7E},       {0xA0, 0xFF},      {0x100, 0x17F},   {0x300, 0x36F},   {0x391, 0x3C9},
      {0x410, 0x44F},     {0x5D0, 0x5EA},    {0x621, 0x64A},   {0x660, 0x669},   {0x905, 0x939},
      {0x93E, 0x94D},     {0x966, 0x96F},    {0xE01, 0xE3A},   {0x1100, 0x1112}, {0x1161, 0x1175},
      {0x11A8, 0x11C2},   {0x2010, 0x2027},  {0x2070, 0x209C}, {0x2200, 0x22FF}, {0x3041, 0x3096},
      {0x30A1, 0x30FA},   {0x4E00, 0x9FA5},  {0xAC00, 0xD7A3}, {0xFF01, 0xFF5E}, {0x1F300, 0x1F5FF},
      {0x1F600, 0x1F64F}, {0x1D400, 0x1D4FF}};
  static const std::vector<char32_t> kSpaces = {
      0x09,   0x0A,   0x0B,   0x0C,   0x0D,   0x20,   0x85,   0xA0,   0x1680, 0x2000, 0x2003, 0x200A,
      0x200B, 0x200D, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF, 0x17F,  0x212A, 0x00,   0x1B};
  static const std::vector<std::string> kFragments = {"'s",
                                                      "'T",
                                                      "'ll",
                                                      "'RE",
                                                      "'d",
                                                      "'\u017F",
                                                      "<|im_start|>",
                                                      "<|im_end|>",
                                                      "<think>",
                                                      "</think>",
                                                      "<|im_",
                                                      "<|endoftext|>",
                                                      "<|box_start|>",
                                                      "<image>",
                                                      "\r\n",
                                                      "\n\n",
                                                      "   ",
                                                      "...",
                                                      "1234567",
                                                      "e\u0301",
                                                      "A\u030A",
                                                      "\u1100\u1161\u11A8",
                                                      "https://x.y/z?q=1",
                                                      "\\frac{a}{b}",
                                                      "<td>",
                                                      "ﬁ"};
  std::string out;
  const int pieces = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_pieces));
  for (int p = 0; p < pieces; ++p) {
    switch (rng() % 4) {
      case 0: {
        const auto& [lo, hi] = kRanges[rng() % kRanges.size()];
        const int n = 1 + static_cast<int>(rng() % 8);
        for (int k = 0; k < n; ++k) AppendCodePoint(lo + rng() % (hi - lo + 1), &out);
        break;
      }
      case 1:
        AppendCodePoint(kSpaces[rng() % kSpaces.size()], &out);
        break;
      case 2:
        out += kFragments[rng() % kFragments.size()];
        break;
      default: {
        const int n = 1 + static_cast<int>(rng() % 10);
        for (int k = 0; k < n; ++k)
          out.push_back(static_cast<char>('a' + rng() % 26 - (rng() % 3 == 0 ? 32 : 0)));
        break;
      }
    }
  }
  return out;
}

TEST(TokenizerJsReferenceTest, RandomAndEdgeCaseStringsMatchTheJavaScriptTokenizer) {
  MINERU_QWEN_VOCAB_OR_SKIP(vocab);
  const auto js_dir = JsTokenizersDir();
  if (!js_dir) {
    if (::mineru::testing::ReferenceDataRequired()) {
      FAIL() << "node or @lenml/tokenizers missing (run scripts/install-deps) and MINERU_REQUIRE_SHARED=1";
    }
    GTEST_SKIP() << "node or @lenml/tokenizers not installed (run scripts/install-deps); skipping";
  }
  const auto config = vocab.parent_path() / "tokenizer_config.json";
  ASSERT_TRUE(std::filesystem::exists(config)) << config;

  std::vector<std::string> texts = {"",
                                    " ",
                                    "\n",
                                    "a'sb",
                                    "Ünïcödé façade",
                                    "x\u3000\u3000y",
                                    "tab\t\tend\t",
                                    "\u00A0\u00A0lead",
                                    "<|im_start|><|im_end|><|im_start|>",
                                    "<<|im_end|>>",
                                    "数字123和English混合",
                                    "\u0041\u030A\u212B",
                                    std::string(300, ' ') + "x",
                                    std::string(500, 'z'),
                                    "🇺🇳🏳️‍🌈 flags"};
  std::mt19937 rng(20261202);
  for (int i = 0; i < 400; ++i) texts.push_back(RandomText(rng, i < 350 ? 24 : 400));

  const auto work = std::filesystem::temp_directory_path() / ("mineru-tok-js-" + std::to_string(::getpid()));
  std::filesystem::create_directories(work);
  {
    std::ofstream in(work / "in.jsonl");
    for (const auto& t : texts) in << Json(t).dump() << "\n";
  }
  const auto script = ::mineru::testing::SourceDir() / "tests/engine/tokenizer_reference.js";
  const std::string command = "node '" + script.string() + "' encode '" +
                              (*js_dir / "node_modules/@lenml/tokenizers").string() + "' '" + vocab.string() +
                              "' '" + config.string() + "' '" + (work / "in.jsonl").string() + "' '" +
                              (work / "out.jsonl").string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  auto results = testing::ReadJsonLines(work / "out.jsonl");
  std::filesystem::remove_all(work);
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results->size(), texts.size());

  auto tok = Tokenizer::FromFile(vocab);
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  int mismatches = 0;
  size_t total_ids = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto expected_ids = (*results)[i]["ids"].get<std::vector<int32_t>>();
    total_ids += expected_ids.size();
    auto ids = (*tok)->Encode(texts[i]);
    ASSERT_TRUE(ids.ok()) << ids.status().ToString();
    auto decoded = (*tok)->Decode(*ids);
    ASSERT_TRUE(decoded.ok());
    if (*ids != expected_ids || *decoded != (*results)[i]["decoded"].get<std::string>()) {
      if (++mismatches <= 5) {
        ADD_FAILURE() << "string " << i << " " << Json(texts[i]).dump() << "\n  js  ids "
                      << Json(expected_ids).dump() << "\n  ours    " << Json(*ids).dump();
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << texts.size() << " strings";
  EXPECT_GT(total_ids, 10000u);  // the comparison covered real work
}

}  // namespace
}  // namespace mineru::engine
