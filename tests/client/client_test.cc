// libmineru-client's C++ and C APIs against the real minerud binary.
#include "mineru/client.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "mineru/client_c.h"
#include "tests/daemon/temp_dir.h"
#include "tests/integration/daemon_harness.h"
#include "tests/support/shared_data.h"

extern "C" int mineru_c_header_check_submit(const char* socket_path, const void* pdf, size_t size,
                                            uint64_t* job_id, int* pages);

namespace mineru::client {
namespace {

using mineru::testing::DaemonHarness;
using mineru::testing::TempDir;

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MINERU_SHARED_DIR_OR_SKIP(shared);
    std::string sample = mineru::testing::SamplePdf(shared);
    if (sample.empty()) GTEST_SKIP() << "sample PDF missing from ../shared/corpus";
    std::string bytes = mineru::testing::ReadFile(sample);
    pdf_.assign(bytes.begin(), bytes.end());
    daemon_.emplace(tmp_.path());
    ASSERT_TRUE(daemon_->Start());
  }

  ClientOptions Options() const {
    ClientOptions o;
    o.socket_path = daemon_->socket_path();
    return o;
  }

  TempDir tmp_;
  std::optional<DaemonHarness> daemon_;
  std::vector<uint8_t> pdf_;
};

SubmitOptions Named(std::string name, bool detach = false, std::string backend = "auto") {
  SubmitOptions o;
  o.name = std::move(name);
  o.detach = detach;
  o.backend = std::move(backend);
  return o;
}

const ResultFile* FindFile(const std::vector<ResultFile>& files, const std::string& path) {
  auto it = std::find_if(files.begin(), files.end(), [&](const ResultFile& f) { return f.path == path; });
  return it == files.end() ? nullptr : &*it;
}

TEST_F(ClientTest, SubmitFromMemoryWaitWithProgressAndFetch) {
  auto c = Client::Connect(Options());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->peer_uid(), ::geteuid());
  EXPECT_FALSE(c->daemon_version().empty());
  auto id = c->Submit(pdf_, Named("mem"));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  std::vector<Progress> seen;
  auto done = c->Wait(*id, [&](const Progress& p) { seen.push_back(p); });
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->state, JobState::kDone);
  EXPECT_EQ(done->pages_total, 4u);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().pages_done, 4u);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1].pages_done, seen[i].pages_done);
  auto files = c->Fetch(*id);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  const ResultFile* md = FindFile(*files, "mem.md");
  ASSERT_NE(md, nullptr);
  EXPECT_FALSE(md->data.empty());
  const ResultFile* content = FindFile(*files, "mem_content_list.json");
  ASSERT_NE(content, nullptr);
  EXPECT_TRUE(nlohmann::json::parse(content->data, nullptr, false).is_array());
  EXPECT_NE(FindFile(*files, "mem_middle.json"), nullptr);
  for (const auto& f : *files) {
    EXPECT_TRUE(f.path.find('/') == std::string::npos || f.path.rfind("images/", 0) == 0) << f.path;
  }
}

TEST_F(ClientTest, ZeroCopyBufferAndTinyRingGiveTheSameResults) {
  ClientOptions o = Options();
  o.ring_bytes = 4096;  // far smaller than the results: the daemon waits for the reader
  auto c = Client::Connect(o);
  ASSERT_TRUE(c.ok());
  auto buffer = DocumentBuffer::Create(pdf_.size());
  ASSERT_TRUE(buffer.ok());
  std::copy(pdf_.begin(), pdf_.end(), buffer->data().begin());
  auto id = c->Submit(std::move(*buffer), Named("zc"));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  ASSERT_EQ(c->Wait(*id)->state, JobState::kDone);
  auto small_ring = c->Fetch(*id);
  ASSERT_TRUE(small_ring.ok()) << small_ring.status().ToString();

  auto other = Client::Connect(Options());
  ASSERT_TRUE(other.ok());
  auto id2 = other->Submit(pdf_, Named("zc"));
  ASSERT_TRUE(id2.ok());
  ASSERT_EQ(other->Wait(*id2)->state, JobState::kDone);
  auto big_ring = other->Fetch(*id2);
  ASSERT_TRUE(big_ring.ok());
  ASSERT_EQ(small_ring->size(), big_ring->size());
  uint64_t total = 0;
  for (const auto& f : *small_ring) {
    const ResultFile* g = FindFile(*big_ring, f.path);
    ASSERT_NE(g, nullptr) << f.path;
    EXPECT_EQ(f.data, g->data) << f.path;
    total += f.data.size();
  }
  EXPECT_GT(total, 10u * 4096)
      << "the results must be much larger than the ring for this test to mean anything";
}

// The content-list items of streamed pages, concatenated.
nlohmann::json PageItems(const std::vector<PageResult>& pages) {
  nlohmann::json all = nlohmann::json::array();
  for (const PageResult& p : pages) {
    nlohmann::json items = nlohmann::json::parse(p.content_list, nullptr, false);
    EXPECT_TRUE(items.is_array()) << p.content_list;
    for (auto& item : items) all.push_back(item);
  }
  return all;
}

TEST_F(ClientTest, PagesStreamInOrderThroughATinyRingEvenWhileWaitingForAnotherJob) {
  ClientOptions o = Options();
  o.page_results = true;
  o.ring_bytes = 4096;  // smaller than a page's records: they flow through as they are read
  auto c = Client::Connect(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto first = c->Submit(pdf_, Named("first"));
  auto second = c->Submit(pdf_, Named("second"));
  ASSERT_TRUE(first.ok() && second.ok());
  std::map<uint64_t, std::vector<PageResult>> pages;
  auto collect = [&](const PageResult& p) { pages[p.job_id].push_back(p); };
  // The second job first: the first job's pages read meanwhile are kept for its own Wait.
  ASSERT_EQ(c->Wait(*second, {}, -1, collect)->state, JobState::kDone);
  EXPECT_EQ(pages.count(*first), 0u) << "pages of another job were handed to this Wait";
  ASSERT_EQ(c->Wait(*first, {}, -1, collect)->state, JobState::kDone);
  for (uint64_t id : {*first, *second}) {
    const std::vector<PageResult>& got = pages[id];
    ASSERT_EQ(got.size(), 4u) << "job " << id;
    for (uint32_t i = 0; i < 4; ++i) {
      EXPECT_EQ(got[i].page_index, i);
      EXPECT_FALSE(got[i].markdown.empty());
      EXPECT_TRUE(got[i].model_output.empty()) << "the text layer has no model output";
    }
    auto files = c->Fetch(id);
    ASSERT_TRUE(files.ok()) << files.status().ToString();
    const std::string name = id == *first ? "first" : "second";
    const ResultFile* content = FindFile(*files, name + "_content_list.json");
    ASSERT_NE(content, nullptr);
    // The pages streamed while the job ran are the document's own content list, item for item.
    EXPECT_EQ(PageItems(got), nlohmann::json::parse(content->data));
    const ResultFile* md = FindFile(*files, name + ".md");
    ASSERT_NE(md, nullptr);
    const std::string markdown(md->data.begin(), md->data.end());
    for (const PageResult& p : got) {
      EXPECT_NE(markdown.find(p.markdown.substr(0, 200)), std::string::npos) << p.markdown;
    }
  }
}

TEST_F(ClientTest, WithoutPageResultsNoPageIsStreamed) {
  ClientOptions o = Options();
  o.ring_bytes = 4096;
  auto c = Client::Connect(o);
  ASSERT_TRUE(c.ok());
  auto id = c->Submit(pdf_, Named("plain"));
  ASSERT_TRUE(id.ok());
  int pages = 0;
  ASSERT_EQ(c->Wait(*id, {}, -1, [&](const PageResult&) { ++pages; })->state, JobState::kDone);
  EXPECT_EQ(pages, 0);
  auto files = c->Fetch(*id);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_NE(FindFile(*files, "plain.md"), nullptr);
}

TEST_F(ClientTest, ErrorsAreStatusCodes) {
  ClientOptions nowhere;
  nowhere.socket_path = tmp_.path() + "/nobody.sock";
  EXPECT_EQ(Client::Connect(nowhere).status().code(), StatusCode::kUnavailable);
  auto c = Client::Connect(Options());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->GetStatus(424242).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(c->Cancel(424242).code(), StatusCode::kNotFound);
  EXPECT_EQ(c->Fetch(424242).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(c->Submit(pdf_, Named("a/b")).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c->Submit(pdf_, Named("x", false, "vlm")).status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(c->Submit(std::span<const uint8_t>(), Named("x")).status().code(), StatusCode::kInvalidArgument);
  // The connection is still usable after refused requests.
  auto stats = c->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->counters.count("jobs_queued"), 1u);
  EXPECT_TRUE(c->Ping().ok());
}

TEST_F(ClientTest, BusyWhenThePerUserQueueIsFull) {
  daemon_->Stop();
  ASSERT_TRUE(daemon_->Start({"--workers", "1", "--set", "max_jobs_per_user=1"}));
  auto c = Client::Connect(Options());
  ASSERT_TRUE(c.ok());
  auto first = c->Submit(pdf_, Named("a", true));
  ASSERT_TRUE(first.ok());
  // The first job takes about a second to parse; the next submit comes milliseconds later.
  auto second = c->Submit(pdf_, Named("b", true));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy) << second.status().ToString();
  // Retrying after the first one ended succeeds.
  ASSERT_TRUE(c->Wait(*first).ok());
  EXPECT_TRUE(c->Submit(pdf_, Named("b", true)).ok());
}

TEST_F(ClientTest, CApi) {
  mineru_client* c = nullptr;
  EXPECT_EQ(mineru_client_connect((tmp_.path() + "/nobody.sock").c_str(), &c), -MINERU_ERR_UNAVAILABLE);
  EXPECT_EQ(c, nullptr);
  ASSERT_EQ(mineru_client_connect(daemon_->socket_path().c_str(), &c), 0);
  mineru_buffer* buffer = nullptr;
  ASSERT_EQ(mineru_buffer_create(pdf_.size(), &buffer), 0);
  std::memcpy(mineru_buffer_data(buffer), pdf_.data(), pdf_.size());
  uint64_t job = 0;
  ASSERT_EQ(mineru_client_submit_buffer(c, buffer, "capi", 0, &job), 0) << mineru_client_last_error(c);
  struct Seen {
    uint32_t last = 0;
    int calls = 0;
  } seen;
  auto on_progress = [](void* user, uint64_t, uint32_t done, uint32_t) {
    auto* s = static_cast<Seen*>(user);
    s->last = done;
    ++s->calls;
  };
  int state = -1;
  ASSERT_EQ(mineru_client_wait(c, job, on_progress, &seen, -1, &state), 0);
  EXPECT_EQ(state, MINERU_JOB_DONE);
  EXPECT_EQ(seen.last, 4u);
  mineru_result* result = nullptr;
  ASSERT_EQ(mineru_client_fetch(c, job, &result), 0) << mineru_client_last_error(c);
  bool has_md = false;
  for (size_t i = 0; i < mineru_result_count(result); ++i) {
    mineru_result_file f;
    ASSERT_EQ(mineru_result_get(result, i, &f), 0);
    if (std::string(f.path) == "capi.md") has_md = f.size > 0;
  }
  EXPECT_TRUE(has_md);
  mineru_result_file none;
  EXPECT_EQ(mineru_result_get(result, 9999, &none), -MINERU_ERR_OUT_OF_RANGE);
  mineru_result_free(result);
  EXPECT_EQ(mineru_client_cancel(c, 987654), -MINERU_ERR_NOT_FOUND);
  EXPECT_STREQ(mineru_client_last_error(c), "no job 987654");
  EXPECT_EQ(mineru_client_submit(c, nullptr, 0, "x", 0, &job), -MINERU_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(mineru_client_strerror(-MINERU_ERR_BUSY), "busy, retry later");
  mineru_client_close(c);
  uint64_t from_c = 0;
  int pages_from_c = 0;
  EXPECT_EQ(mineru_c_header_check_submit(daemon_->socket_path().c_str(), pdf_.data(), pdf_.size(), &from_c,
                                         &pages_from_c),
            0);
  EXPECT_GT(from_c, job);
  EXPECT_EQ(pages_from_c, 4) << "each page streamed to the C callback";
  EXPECT_EQ(mineru_client_connect_with(daemon_->socket_path().c_str(), 0x80, &c),
            -MINERU_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace mineru::client
