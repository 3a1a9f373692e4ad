// Frames: every message round-trips; every truncation, hostile length, wrong magic/version/type and
// bad field is refused with a clear error and without allocating the announced size.
#include "shm/frame.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

namespace mineru::shm {
namespace {

JobInfo SampleJob(uint64_t id) {
  JobInfo job;
  job.job_id = id;
  job.owner_uid = 1000;
  job.state = JobState::kFailed;
  job.document_name = "report-" + std::to_string(id);
  job.backend = "text";
  job.pages_done = 3;
  job.pages_total = 9;
  job.submitted_unix_ms = 1'700'000'000'000;
  job.started_unix_ms = 1'700'000'000'100;
  job.finished_unix_ms = 1'700'000'000'900;
  job.document_bytes = 123456;
  job.result_bytes = 7890;
  job.error_code = StatusCode::kDataLoss;
  job.error_message = "broken xref";
  return job;
}

// One message of every type, with every field away from its default.
std::vector<Message> AllMessages() {
  std::vector<Message> all;
  all.push_back(Hello{1, 1, "mineructl 0.1.0", kCapResultRing | kCapZeroCopySubmit, 8 << 20});
  all.push_back(HelloReply{1, "minerud 0.1.0", kCapResultRing, 42, 1000, 4 << 20, 1ull << 30});
  SubmitRequest submit;
  submit.request_id = 7;
  submit.document_name = "paper";
  submit.document_bytes = 1 << 20;
  submit.outputs = kOutputMarkdown | kOutputImages;
  submit.first_page = 2;
  submit.last_page = 5;
  submit.backend = "vlm";
  submit.detach = true;
  all.push_back(submit);
  all.push_back(JobAccepted{7, 99, 3});
  all.push_back(PageProgress{99, 4, 10});
  all.push_back(PageResultNotice{99, 4, 1234, 5, 4096});
  all.push_back(JobDone{99, 10, 1 << 16, 2500});
  all.push_back(JobFailed{99, StatusCode::kResourceExhausted, "page too large"});
  all.push_back(StatusRequest{8, 99});
  all.push_back(StatusReply{8, SampleJob(99)});
  all.push_back(ListRequest{9, true});
  all.push_back(ListReply{9, {SampleJob(1), SampleJob(2), SampleJob(3)}});
  all.push_back(CancelRequest{10, 99, true});
  all.push_back(CancelReply{10, {99, 100, 101}});
  all.push_back(FetchRequest{11, 99, kOutputContentList});
  all.push_back(FetchReply{11, 99, 77, 12, 1 << 20});
  all.push_back(StatsRequest{12});
  all.push_back(StatsReply{12,
                           {{"jobs_queued", 3}, {"kv_pages_used", 1024}, {"ratio", 0.25}},
                           {TierStats{"gpu", 8ull << 30, 6ull << 30, 7ull << 30, 12},
                            TierStats{"pinned", 16ull << 30, 1ull << 30, 2ull << 30, 3}}});
  all.push_back(ErrorReply{13, StatusCode::kBusy, "queue full", 500});
  all.push_back(Ping{14, std::string(40, 'p')});
  all.push_back(Pong{14, std::string(40, 'p')});
  all.push_back(Goodbye{"daemon stopping"});
  all.push_back(WatchRequest{15, 99});
  all.push_back(WatchReply{15, SampleJob(99)});
  all.push_back(BudgetRequest{16, 6ull << 30});
  all.push_back(BudgetReply{16, 6ull << 30});
  all.push_back(InfoRequest{17});
  InfoReply info;
  info.request_id = 17;
  info.daemon_version = "0.1.0";
  info.pid = 4242;
  info.started_unix_ms = 1'700'000'000'000;
  info.backend = "vlm";
  info.model_dir = "/var/lib/minerud/models/MinerU2.0-2505-0.9B";
  info.model = "Qwen2 decoder, 24 layers";
  info.vram_budget_bytes = 6ull << 30;
  info.pinned_budget_bytes = 2ull << 30;
  info.workers = 2;
  info.max_batch = 16;
  info.max_document_bytes = 512ull << 20;
  info.max_pages_per_document = 2000;
  info.max_jobs_queued = 256;
  info.max_jobs_per_user = 32;
  all.push_back(info);
  return all;
}

uint32_t FdsFor(const Message& m) {
  uint64_t caps = 0;
  if (const auto* r = std::get_if<HelloReply>(&m)) caps = r->capabilities;
  return ExpectedFdCount(TypeOf(m), caps);
}

void SetU64(std::vector<uint8_t>& bytes, size_t offset, uint64_t value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(value));
}

TEST(FrameTest, EveryMessageTypeIsCovered) {
  // One sample per alternative, in MessageType order: adding a message without a test fails here.
  const auto all = AllMessages();
  ASSERT_EQ(all.size(), std::variant_size_v<Message>);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].index(), i);
    EXPECT_EQ(static_cast<size_t>(TypeOf(all[i])), i + 1);
    EXPECT_STRNE(MessageTypeName(TypeOf(all[i])), "unknown");
  }
}

TEST(FrameTest, EveryMessageRoundTrips) {
  for (const Message& m : AllMessages()) {
    SCOPED_TRACE(MessageTypeName(TypeOf(m)));
    const uint32_t fds = FdsFor(m);
    const std::vector<uint8_t> bytes = EncodeFrame(m, fds);
    ASSERT_GE(bytes.size(), kFrameHeaderBytes);
    auto header = ParseFrameHeader(bytes);
    ASSERT_TRUE(header.ok()) << header.status().ToString();
    EXPECT_EQ(header->type, TypeOf(m));
    EXPECT_EQ(header->num_fds, fds);
    EXPECT_EQ(header->payload_bytes, bytes.size() - kFrameHeaderBytes);
    auto decoded = DecodeFrameBytes(bytes, fds);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_TRUE(*decoded == m);
  }
}

TEST(FrameTest, HeaderLayoutIsLittleEndianAtFixedOffsets) {
  const auto bytes = EncodeFrame(Ping{0x1122334455667788, ""});
  const uint8_t magic[4] = {'F', 'M', 'R', 'U'};
  EXPECT_EQ(std::memcmp(bytes.data(), magic, 4), 0);
  EXPECT_EQ(bytes[4], kProtocolVersion);
  EXPECT_EQ(bytes[6], static_cast<uint8_t>(MessageType::kPing));
  // Payload: the nonce, then the string's uint64 length 0.
  ASSERT_EQ(bytes.size(), kFrameHeaderBytes + 16);
  EXPECT_EQ(bytes[16], 16);
  EXPECT_EQ(bytes[24], 0x88);
  EXPECT_EQ(bytes[31], 0x11);
}

TEST(FrameTest, TruncatedAtEveryByteIsRefused) {
  for (const Message& m : AllMessages()) {
    SCOPED_TRACE(MessageTypeName(TypeOf(m)));
    const uint32_t fds = FdsFor(m);
    const std::vector<uint8_t> bytes = EncodeFrame(m, fds);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      // Cut the frame: the header still announces the full payload.
      auto r = DecodeFrameBytes(std::span<const uint8_t>(bytes.data(), cut), fds);
      ASSERT_FALSE(r.ok()) << "cut at " << cut;
      EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
      if (cut < kFrameHeaderBytes) continue;
      // Shrink the payload and its announced length together: the message itself is truncated.
      std::vector<uint8_t> shrunk(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(cut));
      SetU64(shrunk, 16, cut - kFrameHeaderBytes);
      auto s = DecodeFrameBytes(shrunk, fds);
      ASSERT_FALSE(s.ok()) << "payload cut at " << cut;
      EXPECT_EQ(s.status().code(), StatusCode::kDataLoss) << s.status().ToString();
    }
  }
}

TEST(FrameTest, HostilePayloadLengthsInTheHeader) {
  auto bytes = EncodeFrame(Ping{1, "abc"});
  for (uint64_t len :
       {uint64_t{0}, uint64_t{0xFFFFFFFF}, uint64_t{1} << 63, ~uint64_t{0}, kMaxFramePayloadBytes + 1}) {
    SCOPED_TRACE(len);
    SetU64(bytes, 16, len);
    auto header = ParseFrameHeader(bytes);
    if (len == 0) {
      ASSERT_TRUE(header.ok());  // a valid header; the empty payload cannot hold a ping
      auto r = DecodePayload(MessageType::kPing, {});
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
    } else {
      ASSERT_FALSE(header.ok());
      EXPECT_EQ(header.status().code(), StatusCode::kResourceExhausted);
      EXPECT_NE(header.status().message().find("exceeds"), std::string::npos);
    }
  }
}

TEST(FrameTest, HostileLengthsInsideThePayload) {
  // Ping = nonce(8) + string length(8) + bytes. Forge the string length.
  auto bytes = EncodeFrame(Ping{1, "abcd"});
  for (uint64_t len : {uint64_t{5}, uint64_t{0xFFFFFFFF}, uint64_t{1} << 63, ~uint64_t{0}}) {
    SCOPED_TRACE(len);
    SetU64(bytes, kFrameHeaderBytes + 8, len);
    auto r = DecodeFrameBytes(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss) << r.status().ToString();
  }
  // A list count far beyond the bytes present.
  auto list = EncodeFrame(ListReply{1, {SampleJob(1)}});
  SetU64(list, kFrameHeaderBytes + 8, uint64_t{1} << 40);
  auto r = DecodeFrameBytes(list);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
}

TEST(FrameTest, WrongMagicVersionTypeAndReservedAreRefused) {
  const auto good = EncodeFrame(StatsRequest{5});
  {
    auto bytes = good;
    bytes[0] ^= 0xFF;
    auto r = DecodeFrameBytes(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("magic"), std::string::npos);
  }
  for (uint16_t version : {uint16_t{0}, uint16_t{2}, uint16_t{0xFFFF}}) {
    auto bytes = good;
    std::memcpy(bytes.data() + 4, &version, 2);
    auto r = DecodeFrameBytes(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(r.status().message().find("version " + std::to_string(version)), std::string::npos)
        << r.status().message();
  }
  for (uint16_t type : {uint16_t{0}, uint16_t{29}, uint16_t{0xFFFF}}) {
    auto bytes = good;
    std::memcpy(bytes.data() + 6, &type, 2);
    auto r = DecodeFrameBytes(bytes);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  {
    auto bytes = good;
    bytes[12] = 1;
    EXPECT_FALSE(DecodeFrameBytes(bytes).ok());
  }
  {
    auto bytes = good;
    uint32_t fds = kMaxFdsPerFrame + 1;
    std::memcpy(bytes.data() + 8, &fds, 4);
    EXPECT_EQ(ParseFrameHeader(bytes).status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(FrameTest, TrailingBytesAreRefused) {
  auto bytes = EncodeFrame(StatsRequest{5});
  bytes.push_back(0);
  SetU64(bytes, 16, bytes.size() - kFrameHeaderBytes);
  auto r = DecodeFrameBytes(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("trailing"), std::string::npos);
}

TEST(FrameTest, FieldValuesAreValidated) {
  // bool byte other than 0/1 (ListRequest: request_id(8) + all_users(1)).
  auto list = EncodeFrame(ListRequest{1, true});
  list[kFrameHeaderBytes + 8] = 2;
  EXPECT_FALSE(DecodeFrameBytes(list).ok());
  // An error code beyond StatusCode, and kOk as an error.
  auto err = EncodeFrame(ErrorReply{1, StatusCode::kBusy, "x", 0});
  uint32_t code = 999;
  std::memcpy(err.data() + kFrameHeaderBytes + 8, &code, 4);
  EXPECT_EQ(DecodeFrameBytes(err).status().code(), StatusCode::kInvalidArgument);
  code = 0;
  std::memcpy(err.data() + kFrameHeaderBytes + 8, &code, 4);
  EXPECT_EQ(DecodeFrameBytes(err).status().code(), StatusCode::kInvalidArgument);
  // A job state beyond JobState.
  JobInfo job = SampleJob(1);
  job.state = static_cast<JobState>(9);
  EXPECT_EQ(DecodeFrameBytes(EncodeFrame(StatusReply{1, job})).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeFrameBytes(EncodeFrame(WatchReply{1, job})).status().code(), StatusCode::kInvalidArgument);
  // A VRAM budget of 0 bytes.
  EXPECT_EQ(DecodeFrameBytes(EncodeFrame(BudgetRequest{1, 0})).status().code(), StatusCode::kInvalidArgument);

  SubmitRequest submit;
  submit.document_bytes = 10;
  submit.document_name = "ok";
  EXPECT_TRUE(ValidateMessage(submit).ok());
  auto bad = submit;
  bad.document_name = "../etc/passwd";
  EXPECT_FALSE(ValidateMessage(bad).ok());
  bad = submit;
  bad.document_bytes = 0;
  EXPECT_FALSE(ValidateMessage(bad).ok());
  bad = submit;
  bad.first_page = 5;
  bad.last_page = 4;
  EXPECT_FALSE(ValidateMessage(bad).ok());
  bad = submit;
  bad.outputs = 0;
  EXPECT_FALSE(ValidateMessage(bad).ok());
  bad = submit;
  bad.outputs = 1u << 20;
  EXPECT_FALSE(ValidateMessage(bad).ok());
  bad = submit;
  bad.backend = "";
  EXPECT_FALSE(ValidateMessage(bad).ok());
  Hello hello;
  hello.min_version = 3;
  hello.max_version = 2;
  EXPECT_FALSE(ValidateMessage(hello).ok());
  EXPECT_FALSE(ValidateMessage(Ping{1, std::string(kMaxStringBytes + 1, 'x')}).ok());
}

TEST(FrameTest, FdCountMustMatchTheMessageType) {
  SubmitRequest submit;
  submit.document_bytes = 10;
  // A submit needs exactly one fd.
  EXPECT_TRUE(DecodeFrameBytes(EncodeFrame(submit, 1), 1).ok());
  EXPECT_EQ(DecodeFrameBytes(EncodeFrame(submit, 0), 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DecodeFrameBytes(EncodeFrame(submit, 2), 2).status().code(), StatusCode::kInvalidArgument);
  // The header says 1 but none arrived.
  EXPECT_EQ(DecodeFrameBytes(EncodeFrame(submit, 1), 0).status().code(), StatusCode::kInvalidArgument);
  // Nothing else carries fds.
  EXPECT_FALSE(DecodeFrameBytes(EncodeFrame(Ping{1, ""}, 1), 1).ok());
  HelloReply reply;
  reply.capabilities = kCapResultRing;
  EXPECT_TRUE(DecodeFrameBytes(EncodeFrame(reply, 4), 4).ok());
  EXPECT_FALSE(DecodeFrameBytes(EncodeFrame(reply, 0), 0).ok());
  reply.capabilities = 0;
  EXPECT_TRUE(DecodeFrameBytes(EncodeFrame(reply, 0), 0).ok());
}

TEST(FrameTest, ErrorReplyMirrorsStatus) {
  const ErrorReply r = MakeErrorReply(4, Busy("queue full"), 250);
  EXPECT_EQ(r.code, StatusCode::kBusy);
  EXPECT_EQ(r.message, "queue full");
  EXPECT_EQ(r.retry_after_ms, 250u);
  EXPECT_TRUE(ValidateMessage(r).ok());
}

}  // namespace
}  // namespace mineru::shm
