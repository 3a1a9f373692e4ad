#include "common/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/support/shared_data.h"

namespace mineru {
namespace {

TEST(ConfigTest, DefaultsAreSane) {
  Config c;
  EXPECT_TRUE(c.model_dir.empty());  // the text-layer backend by default
  EXPECT_EQ(c.kv_page_tokens, 16);
  EXPECT_EQ(c.render_dpi, 200);
  EXPECT_GT(c.max_document_bytes, 0u);
}

TEST(ConfigTest, EveryKeyParses) {
  Config c;
  Status st = ConfigSchemaFor().LoadText(
      "socket = /tmp/m.sock\nstate_dir = /tmp/state\nmodel_dir = /models/mineru\nlog_level = debug\n"
      "vram_budget = 6G\npinned_budget = 8G\nkeep_alive = 5m\nkv_page_tokens = 32\n"
      "prefill_chunk = 1024\nmax_batch = 8\nworkers = 2\nrender_dpi = 150\nmax_jobs_queued = 10\n"
      "max_jobs_per_user = 3\nmax_document_size = 64M\nmax_bytes_per_user = 1G\nmax_pages = 50\n"
      "max_seconds = 60\nmupdf_memory = 256M\ndrain_timeout = 10s\nresult_retention = 2d\n"
      "admin_group = wheel\n",
      "minerud.conf", &c);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(c.vram_budget_bytes, 6ull << 30);
  EXPECT_EQ(c.keep_alive_ms, 300'000);
  EXPECT_EQ(c.result_retention_ms, 2 * 86'400'000);
  EXPECT_EQ(c.admin_group, "wheel");
  EXPECT_EQ(c.log_level, "debug");
}

TEST(ConfigTest, OcrKeys) {
  Config c;
  EXPECT_TRUE(c.ocr);
  EXPECT_EQ(c.ocr_languages, "eng+chi_sim");
  ASSERT_TRUE(
      ConfigSchemaFor()
          .LoadText("ocr = off\nocr_languages = deu+fra\nocr_page_time_limit = 5s\n", "minerud.conf", &c)
          .ok());
  EXPECT_FALSE(c.ocr);
  EXPECT_EQ(c.ocr_languages, "deu+fra");
  EXPECT_EQ(c.ocr_page_time_limit_ms, 5000);
  Status st = ConfigSchemaFor().LoadText("ocr_languages = ../eng\n", "minerud.conf", &c);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("ocr_languages"), std::string::npos) << st.message();
}

TEST(ConfigTest, OcrLanguageListsAreChecked) {
  EXPECT_TRUE(CheckOcrLanguages("eng").ok());
  EXPECT_TRUE(CheckOcrLanguages("eng+chi_sim").ok());
  for (const char* bad : {"", "+eng", "eng+", "eng++deu", "../eng", "eng deu", "eng;rm"}) {
    EXPECT_FALSE(CheckOcrLanguages(bad).ok()) << bad;
  }
}

TEST(ConfigTest, BadLogLevelNamesTheKey) {
  Config c;
  Status st = ConfigSchemaFor().LoadText("log_level = chatty\n", "minerud.conf", &c);
  EXPECT_NE(st.message().find("minerud.conf:1: key 'log_level'"), std::string::npos) << st.message();
}

TEST(ConfigTest, DefaultPathsFollowTheUser) {
  if (::geteuid() == 0) {
    EXPECT_EQ(DefaultSocketPath(), "/run/minerud/minerud.sock");
    EXPECT_EQ(DefaultStateDir(), "/var/lib/minerud");
  } else {
    EXPECT_NE(DefaultSocketPath().find("minerud.sock"), std::string::npos);
  }
}

TEST(ConfigTest, ModelDirIsAPathOrANameInModelsDir) {
  EXPECT_EQ(*ResolveModelDir("", "/m"), "");
  EXPECT_EQ(*ResolveModelDir("/abs/model", "/m"), "/abs/model");
  EXPECT_EQ(*ResolveModelDir("./rel", "/m"), "./rel");
  EXPECT_EQ(*ResolveModelDir("MinerU2.0-2505-0.9B", "/var/lib/minerud/models"),
            "/var/lib/minerud/models/MinerU2.0-2505-0.9B");
  EXPECT_FALSE(ResolveModelDir("..", "/m").ok());
  EXPECT_FALSE(ResolveModelDir(".hidden", "/m").ok());
  EXPECT_FALSE(ResolveModelDir("a b", "/m").ok());
  EXPECT_FALSE(ResolveModelDir("name", "").ok());
  if (::geteuid() == 0) {
    EXPECT_EQ(DefaultModelsDir(), "/var/lib/minerud/models");
  }
}

TEST(ConfigTest, ManPageDocumentsEveryKey) {
  auto page = testing::SourceDir() / "man" / "minerud.conf.5";
  std::ifstream in(page);
  if (!in) GTEST_SKIP() << "man/minerud.conf.5 is not written yet";
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& key : ConfigSchemaFor().keys()) {
    EXPECT_NE(text.str().find(key.key), std::string::npos) << "minerud.conf(5) misses key " << key.key;
  }
}

TEST(ConfigTest, HttpListenIsAnAddressAndAPort) {
  auto bare = ParseHttpListen("8000");
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_EQ(bare->host, "127.0.0.1");
  EXPECT_EQ(bare->port, 8000);
  EXPECT_TRUE(bare->loopback);
  auto v6 = ParseHttpListen("[::1]:0");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_TRUE(v6->loopback);
  EXPECT_TRUE(ParseHttpListen("localhost:30000")->loopback);
  EXPECT_TRUE(ParseHttpListen("127.1.2.3:1")->loopback);
  auto any = ParseHttpListen("0.0.0.0:8000");
  ASSERT_TRUE(any.ok());
  EXPECT_FALSE(any->loopback);
  EXPECT_FALSE(ParseHttpListen("[::]:8000")->loopback);
  for (const char* bad : {"", ":", "host:80", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:8o", "1.2.3:80"}) {
    EXPECT_FALSE(ParseHttpListen(bad).ok()) << bad;
  }
  Config c;
  EXPECT_FALSE(ConfigSchemaFor().LoadText("http_listen = example.org:80\n", "<t>", &c).ok());
  EXPECT_TRUE(ConfigSchemaFor().LoadText("http_listen = 127.0.0.1:8000\n", "<t>", &c).ok());
}

}  // namespace
}  // namespace mineru
