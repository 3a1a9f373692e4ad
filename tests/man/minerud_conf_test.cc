// minerud.conf(5) and examples/minerud.conf against the real config schema: every key is
// documented in both, nothing else is, and the defaults they state are the defaults the daemon
// has — each default is parsed by the daemon's own loader and compared with a default Config.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "common/config.h"
#include "tests/support/shared_data.h"

namespace mineru {
namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream in(testing::SourceDir() / relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every field of Config, so that a default stated wrongly in a document shows up as a difference.
void ExpectSameConfig(const Config& got, const Config& want, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(got.socket_path, want.socket_path);
  EXPECT_EQ(got.socket_mode, want.socket_mode);
  EXPECT_EQ(got.state_dir, want.state_dir);
  EXPECT_EQ(got.model_dir, want.model_dir);
  EXPECT_EQ(got.backend, want.backend);
  EXPECT_EQ(got.models_dir, want.models_dir);
  EXPECT_EQ(got.log_level, want.log_level);
  EXPECT_EQ(got.vram_budget_bytes, want.vram_budget_bytes);
  EXPECT_EQ(got.pinned_budget_bytes, want.pinned_budget_bytes);
  EXPECT_EQ(got.keep_alive_ms, want.keep_alive_ms);
  EXPECT_EQ(got.kv_page_tokens, want.kv_page_tokens);
  EXPECT_EQ(got.prefill_chunk_tokens, want.prefill_chunk_tokens);
  EXPECT_EQ(got.max_batch, want.max_batch);
  EXPECT_EQ(got.max_new_tokens, want.max_new_tokens);
  EXPECT_EQ(got.kv_cache_tokens, want.kv_cache_tokens);
  EXPECT_EQ(got.step_tokens, want.step_tokens);
  EXPECT_EQ(got.vision_batch_tokens, want.vision_batch_tokens);
  EXPECT_EQ(got.max_pages_per_user, want.max_pages_per_user);
  EXPECT_EQ(got.compute_dtype, want.compute_dtype);
  EXPECT_EQ(got.compute_threads, want.compute_threads);
  EXPECT_EQ(got.preemption, want.preemption);
  EXPECT_EQ(got.batching, want.batching);
  EXPECT_EQ(got.remote_urls, want.remote_urls);
  EXPECT_EQ(got.remote_api_key_file, want.remote_api_key_file);
  EXPECT_EQ(got.remote_concurrency, want.remote_concurrency);
  EXPECT_EQ(got.remote_timeout_ms, want.remote_timeout_ms);
  EXPECT_EQ(got.http_listen, want.http_listen);
  EXPECT_EQ(got.http_token_file, want.http_token_file);
  EXPECT_EQ(got.http_max_connections, want.http_max_connections);
  EXPECT_EQ(got.http_max_body_bytes, want.http_max_body_bytes);
  EXPECT_EQ(got.http_timeout_ms, want.http_timeout_ms);
  EXPECT_EQ(got.workers, want.workers);
  EXPECT_EQ(got.render_dpi, want.render_dpi);
  EXPECT_EQ(got.ocr, want.ocr);
  EXPECT_EQ(got.ocr_languages, want.ocr_languages);
  EXPECT_EQ(got.ocr_page_time_limit_ms, want.ocr_page_time_limit_ms);
  EXPECT_EQ(got.max_jobs_queued, want.max_jobs_queued);
  EXPECT_EQ(got.max_jobs_per_user, want.max_jobs_per_user);
  EXPECT_EQ(got.max_document_bytes, want.max_document_bytes);
  EXPECT_EQ(got.max_bytes_per_user, want.max_bytes_per_user);
  EXPECT_EQ(got.max_pages_per_document, want.max_pages_per_document);
  EXPECT_EQ(got.max_seconds_per_document, want.max_seconds_per_document);
  EXPECT_EQ(got.mupdf_memory_bytes, want.mupdf_memory_bytes);
  EXPECT_EQ(got.max_attempts, want.max_attempts);
  EXPECT_EQ(got.document_worker, want.document_worker);
  EXPECT_EQ(got.worker_memory_bytes, want.worker_memory_bytes);
  EXPECT_EQ(got.drain_timeout_ms, want.drain_timeout_ms);
  EXPECT_EQ(got.result_retention_ms, want.result_retention_ms);
  EXPECT_EQ(got.admin_group, want.admin_group);
}

// A Config whose every field differs from the default, so loading defaults over it must restore
// each one (a key the document gives no default for would keep its "poisoned" value).
constexpr char kPoisonText[] =
    "socket = /x/s\nsocket_mode = 0600\nstate_dir = /x/st\nmodel_dir = /x/m\nmodels_dir = /x/ms\nlog_level = "
    "error\nvram_budget "
    "= 7\n"
    "pinned_budget = 7\nkeep_alive = 7ms\nkv_page_tokens = 7\nprefill_chunk = 7\nmax_batch = "
    "7\nmax_new_tokens = 7\n"
    "kv_cache_tokens = 7\nstep_tokens = 7\nvision_batch_tokens = 7\nmax_pages_per_user = 7\n"
    "compute_dtype = f32\ncompute_threads = 7\npreemption = recompute\nbatching = static\n"
    "backend = remote\nremote_url = http://x\nremote_api_key_file = /x/k\nremote_concurrency = 7\n"
    "remote_timeout = 7ms\n"
    "http_listen = 7\nhttp_token_file = /x/t\nhttp_max_connections = 7\nhttp_max_body = 7\n"
    "http_timeout = 7ms\n"
    "workers = 7\nrender_dpi = 77\nocr = false\nocr_languages = deu\n"
    "ocr_page_time_limit = 7ms\nmax_jobs_queued = 7\nmax_jobs_per_user = 7\n"
    "max_document_size = 7\nmax_bytes_per_user = 7\nmax_pages = 7\nmax_seconds = 7\n"
    "mupdf_memory = 7\nmax_attempts = 7\ndocument_worker = /x\nworker_memory = 7\ndrain_timeout = "
    "7ms\nresult_retention = 7ms\nadmin_group = x\n";

Config Poisoned() {
  Config c;
  Status st = ConfigSchemaFor().LoadText(kPoisonText, "<poison>", &c);
  EXPECT_TRUE(st.ok()) << st.message();
  return c;
}

// minerud.conf(5) lists each key as `.TP` followed by `\fBkey\fR = ...`, and states its default in
// the entry as `Default: \fBVALUE\fR` or `Default: empty`.
std::map<std::string, std::string> ManPageDefaults(const std::string& page) {
  std::map<std::string, std::string> defaults;
  static const std::regex kKeyLine(R"(^\\fB([a-z_]+)\\fR = )");
  static const std::regex kDefault(R"(Default: (?:\\fB([^\\]*)\\fR|(empty)))");
  std::istringstream lines(page);
  std::string line, previous, key;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (previous == ".TP" && std::regex_search(line, m, kKeyLine)) {
      key = m[1];
      EXPECT_EQ(defaults.count(key), 0u) << "minerud.conf(5) documents " << key << " twice";
      defaults[key] = "\x01";  // no default seen yet
    } else if (line.rfind(".SH", 0) == 0) {
      key.clear();
    } else if (!key.empty() && std::regex_search(line, m, kDefault)) {
      defaults[key] = m[1].matched ? m[1].str() : "";
      key.clear();
    }
    previous = line;
  }
  return defaults;
}

// examples/minerud.conf shows each key commented out at its default: `#key = VALUE`.
std::map<std::string, std::string> ExampleDefaults(const std::string& example) {
  std::map<std::string, std::string> defaults;
  static const std::regex kAssignment(R"(^#([a-z_]+) =(?: (.*))?$)");
  std::istringstream lines(example);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, m, kAssignment)) {
      EXPECT_EQ(defaults.count(m[1]), 0u) << "examples/minerud.conf shows " << m[1] << " twice";
      defaults[m[1]] = m[2].matched ? m[2].str() : "";
    }
  }
  return defaults;
}

void ExpectDocumentsEveryKeyAtItsDefault(const std::map<std::string, std::string>& defaults,
                                         const std::string& document) {
  ASSERT_FALSE(defaults.empty()) << document << " is missing or lists no keys";
  std::string text;
  for (const auto& info : ConfigSchemaFor().keys()) {
    auto it = defaults.find(info.key);
    if (it == defaults.end()) {
      ADD_FAILURE() << document << " does not document the key " << info.key;
      continue;
    }
    EXPECT_NE(it->second, "\x01") << document << " states no default for " << info.key;
  }
  for (const auto& [key, value] : defaults) {
    if (value == "\x01") continue;
    EXPECT_TRUE(ConfigSchemaFor().HasKey(key)) << document << " documents " << key << ", not a config key";
    text += key + " = " + value + "\n";
  }
  Config loaded = Poisoned();
  Status st = ConfigSchemaFor().LoadText(text, document, &loaded);
  ASSERT_TRUE(st.ok()) << document << ": a stated default does not parse: " << st.message();
  ExpectSameConfig(loaded, Config{}, document);
}

TEST(MinerudConfPageTest, DocumentsEveryKeyWithTheDaemonsDefault) {
  ExpectDocumentsEveryKeyAtItsDefault(ManPageDefaults(ReadSource("man/minerud.conf.5")), "minerud.conf(5)");
}

TEST(MinerudConfPageTest, ExampleShowsEveryKeyAtTheDaemonsDefault) {
  ExpectDocumentsEveryKeyAtItsDefault(ExampleDefaults(ReadSource("examples/minerud.conf")),
                                      "examples/minerud.conf");
}

TEST(MinerudConfPageTest, ExampleLoadsAsIsWithoutChangingAnything) {
  std::string example = ReadSource("examples/minerud.conf");
  ASSERT_FALSE(example.empty());
  Config loaded;
  Status st = ConfigSchemaFor().LoadText(example, "examples/minerud.conf", &loaded);
  ASSERT_TRUE(st.ok()) << st.message();
  ExpectSameConfig(loaded, Config{}, "examples/minerud.conf as shipped");
}

// Integer keys state their range as `(A\(enB)` or `(A or more)`; the loader must accept both ends and
// refuse one past each, and every integer key must state one.
TEST(MinerudConfPageTest, IntegerRangesAreTheLoadersRanges) {
  std::string page = ReadSource("man/minerud.conf.5");
  ASSERT_FALSE(page.empty());
  static const std::regex kRange(
      R"(^\\fB([a-z_]+)\\fR = \\fIinteger\\fR \((-?[0-9]+)(?:\\\(en([0-9]+)| or more)\)$)");
  std::map<std::string, std::pair<int64_t, int64_t>> ranges;
  std::istringstream lines(page);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (!std::regex_match(line, m, kRange)) continue;
    int64_t max = m[3].matched ? std::stoll(m[3].str()) : std::numeric_limits<int64_t>::max();
    ranges[m[1]] = {std::stoll(m[2].str()), max};
  }
  for (const auto& info : ConfigSchemaFor().keys()) {
    if (info.type == "integer") {
      EXPECT_EQ(ranges.count(info.key), 1u)
          << "minerud.conf(5) states no range for the integer key " << info.key;
    }
  }
  auto loads = [](const std::string& key, int64_t value) {
    Config c;
    return ConfigSchemaFor().LoadText(key + " = " + std::to_string(value) + "\n", "<range>", &c).ok();
  };
  for (const auto& [key, range] : ranges) {
    auto [min, max] = range;
    EXPECT_TRUE(loads(key, min)) << key << " = " << min << " is documented as allowed";
    EXPECT_FALSE(loads(key, min - 1)) << key << " = " << min - 1 << " is documented as out of range";
    EXPECT_TRUE(loads(key, max)) << key << " = " << max << " is documented as allowed";
    if (max < std::numeric_limits<int64_t>::max()) {
      EXPECT_FALSE(loads(key, max + 1)) << key << " = " << max + 1 << " is documented as out of range";
    }
  }
}

TEST(MinerudConfPageTest, PoisonedConfigDiffersInEveryField) {
  // Guards the two tests above: if Poisoned() left a field at its default, a document missing that
  // key's default could not be caught. A new config key fails here until it is poisoned (and
  // compared in ExpectSameConfig).
  std::string poison = std::string("\n") + kPoisonText;
  for (const auto& info : ConfigSchemaFor().keys()) {
    EXPECT_NE(poison.find("\n" + info.key + " = "), std::string::npos)
        << "kPoisonText does not set the new key " << info.key << "; add it there and to ExpectSameConfig";
  }
  Config poisoned = Poisoned();
  Config defaults;
  EXPECT_NE(poisoned.socket_path, defaults.socket_path);
  EXPECT_NE(poisoned.socket_mode, defaults.socket_mode);
  EXPECT_NE(poisoned.state_dir, defaults.state_dir);
  EXPECT_NE(poisoned.model_dir, defaults.model_dir);
  EXPECT_NE(poisoned.log_level, defaults.log_level);
  EXPECT_NE(poisoned.vram_budget_bytes, defaults.vram_budget_bytes);
  EXPECT_NE(poisoned.pinned_budget_bytes, defaults.pinned_budget_bytes);
  EXPECT_NE(poisoned.keep_alive_ms, defaults.keep_alive_ms);
  EXPECT_NE(poisoned.kv_page_tokens, defaults.kv_page_tokens);
  EXPECT_NE(poisoned.prefill_chunk_tokens, defaults.prefill_chunk_tokens);
  EXPECT_NE(poisoned.max_batch, defaults.max_batch);
  EXPECT_NE(poisoned.max_new_tokens, defaults.max_new_tokens);
  EXPECT_NE(poisoned.kv_cache_tokens, defaults.kv_cache_tokens);
  EXPECT_NE(poisoned.step_tokens, defaults.step_tokens);
  EXPECT_NE(poisoned.vision_batch_tokens, defaults.vision_batch_tokens);
  EXPECT_NE(poisoned.max_pages_per_user, defaults.max_pages_per_user);
  EXPECT_NE(poisoned.compute_dtype, defaults.compute_dtype);
  EXPECT_NE(poisoned.compute_threads, defaults.compute_threads);
  EXPECT_NE(poisoned.preemption, defaults.preemption);
  EXPECT_NE(poisoned.batching, defaults.batching);
  EXPECT_NE(poisoned.workers, defaults.workers);
  EXPECT_NE(poisoned.render_dpi, defaults.render_dpi);
  EXPECT_NE(poisoned.ocr, defaults.ocr);
  EXPECT_NE(poisoned.ocr_languages, defaults.ocr_languages);
  EXPECT_NE(poisoned.ocr_page_time_limit_ms, defaults.ocr_page_time_limit_ms);
  EXPECT_NE(poisoned.max_jobs_queued, defaults.max_jobs_queued);
  EXPECT_NE(poisoned.max_jobs_per_user, defaults.max_jobs_per_user);
  EXPECT_NE(poisoned.max_document_bytes, defaults.max_document_bytes);
  EXPECT_NE(poisoned.max_bytes_per_user, defaults.max_bytes_per_user);
  EXPECT_NE(poisoned.max_pages_per_document, defaults.max_pages_per_document);
  EXPECT_NE(poisoned.max_seconds_per_document, defaults.max_seconds_per_document);
  EXPECT_NE(poisoned.mupdf_memory_bytes, defaults.mupdf_memory_bytes);
  EXPECT_NE(poisoned.max_attempts, defaults.max_attempts);
  EXPECT_NE(poisoned.document_worker, defaults.document_worker);
  EXPECT_NE(poisoned.worker_memory_bytes, defaults.worker_memory_bytes);
  EXPECT_NE(poisoned.drain_timeout_ms, defaults.drain_timeout_ms);
  EXPECT_NE(poisoned.result_retention_ms, defaults.result_retention_ms);
  EXPECT_NE(poisoned.admin_group, defaults.admin_group);
}

}  // namespace
}  // namespace mineru
