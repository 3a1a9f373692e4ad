// FrameAssembler: frames split at every byte, several frames per chunk, the fd-to-frame rule, and
// hostile headers refused before anything is buffered.
#include "shm/frame_assembler.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>

#include "tests/shm/fd_guard.h"

namespace mineru::shm {
namespace {

using FrameAssemblerTest = testing::FdLeakTest;

UniqueFd MakePipeFd() {
  int p[2];
  EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
  close(p[1]);
  return UniqueFd(p[0]);
}

std::vector<UniqueFd> Fds(int n) {
  std::vector<UniqueFd> out;
  for (int i = 0; i < n; ++i) out.push_back(MakePipeFd());
  return out;
}

SubmitRequest Submit(uint64_t id) {
  SubmitRequest s;
  s.request_id = id;
  s.document_bytes = 100;
  s.document_name = "doc";
  return s;
}

TEST_F(FrameAssemblerTest, SplitAtEveryByte) {
  std::vector<uint8_t> stream = EncodeFrame(Ping{1, "hello"});
  const auto second = EncodeFrame(StatsRequest{2});
  stream.insert(stream.end(), second.begin(), second.end());
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    FrameAssembler assembler;
    std::vector<Message> got;
    auto drain = [&] {
      while (true) {
        auto frame = assembler.Pop();
        ASSERT_TRUE(frame.ok()) << frame.status().ToString();
        if (!*frame) return;
        auto m = DecodeFrame(**frame);
        ASSERT_TRUE(m.ok()) << m.status().ToString();
        got.push_back(*m);
      }
    };
    ASSERT_TRUE(assembler.Feed(std::span<const uint8_t>(stream.data(), cut)).ok());
    drain();
    ASSERT_TRUE(assembler.Feed(std::span<const uint8_t>(stream.data() + cut, stream.size() - cut)).ok());
    drain();
    ASSERT_EQ(got.size(), 2u) << "cut " << cut;
    EXPECT_TRUE(got[0] == Message(Ping{1, "hello"}));
    EXPECT_TRUE(got[1] == Message(StatsRequest{2}));
    EXPECT_FALSE(assembler.mid_frame());
  }
}

TEST_F(FrameAssemblerTest, ByteAtATime) {
  const auto stream = EncodeFrame(ListReply{3, {}});
  FrameAssembler assembler;
  for (size_t i = 0; i < stream.size(); ++i) {
    ASSERT_TRUE(assembler.Feed(std::span<const uint8_t>(&stream[i], 1)).ok());
    auto frame = assembler.Pop();
    ASSERT_TRUE(frame.ok());
    EXPECT_EQ(frame->has_value(), i + 1 == stream.size());
    if (i + 1 < stream.size()) {
      EXPECT_TRUE(assembler.mid_frame());
    }
  }
}

TEST_F(FrameAssemblerTest, FdsGoToTheFrameStartingInTheirChunk) {
  // Chunk 1: all of a ping and the first 10 bytes of a submit; its fd belongs to the submit.
  auto stream = EncodeFrame(Ping{1, ""});
  const size_t submit_start = stream.size();
  const auto submit = EncodeFrame(Submit(5), 1);
  stream.insert(stream.end(), submit.begin(), submit.end());
  FrameAssembler assembler;
  ASSERT_TRUE(assembler.Feed(std::span<const uint8_t>(stream.data(), submit_start + 10), Fds(1)).ok());
  auto first = assembler.Pop();
  ASSERT_TRUE(first.ok() && first->has_value()) << first.status().ToString();
  EXPECT_TRUE((*first)->fds.empty());
  ASSERT_TRUE(assembler
                  .Feed(std::span<const uint8_t>(stream.data() + submit_start + 10,
                                                 stream.size() - submit_start - 10))
                  .ok());
  auto second = assembler.Pop();
  ASSERT_TRUE(second.ok() && second->has_value()) << second.status().ToString();
  EXPECT_EQ((*second)->fds.size(), 1u);
  EXPECT_TRUE(DecodeFrame(**second).ok());
}

TEST_F(FrameAssemblerTest, MissingAndExtraFdsAreRefusedAndClosed) {
  {
    FrameAssembler assembler;  // header says 1, none came
    ASSERT_TRUE(assembler.Feed(EncodeFrame(Submit(1), 1)).ok());
    auto r = assembler.Pop();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_TRUE(assembler.broken());
    EXPECT_FALSE(assembler.Feed(EncodeFrame(Ping{1, ""})).ok());
  }
  {
    FrameAssembler assembler;  // header says 1, 3 came
    ASSERT_TRUE(assembler.Feed(EncodeFrame(Submit(1), 1), Fds(3)).ok());
    EXPECT_FALSE(assembler.Pop().ok());
  }
  {
    FrameAssembler assembler;  // fds in a chunk that lies inside a frame
    const auto frame = EncodeFrame(Ping{1, std::string(100, 'x')});
    ASSERT_TRUE(assembler.Feed(std::span<const uint8_t>(frame.data(), 30)).ok());
    ASSERT_TRUE(assembler.Pop().ok());
    ASSERT_TRUE(assembler.Feed(std::span<const uint8_t>(frame.data() + 30, 20), Fds(2)).ok());
    EXPECT_FALSE(assembler.Pop().ok());
  }
  {
    FrameAssembler assembler;  // fds with no bytes at all
    EXPECT_FALSE(assembler.Feed({}, Fds(1)).ok());
  }
  {
    FrameAssembler assembler;  // 250 fds, more than the frame announces and more than allowed
    ASSERT_TRUE(assembler.Feed(EncodeFrame(Submit(1), 1), Fds(250)).ok());
    EXPECT_FALSE(assembler.Pop().ok());
  }
}

TEST_F(FrameAssemblerTest, HostileHeaderIsRefusedBeforeBuffering) {
  for (uint64_t len : {uint64_t{0xFFFFFFFF}, uint64_t{1} << 63}) {
    auto frame = EncodeFrame(Ping{1, ""});
    std::memcpy(frame.data() + 16, &len, 8);
    FrameAssembler assembler;
    ASSERT_TRUE(assembler.Feed(std::span<const uint8_t>(frame.data(), kFrameHeaderBytes)).ok());
    auto r = assembler.Pop();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(assembler.buffered_bytes(), 0u);
  }
  FrameAssembler assembler;
  auto frame = EncodeFrame(Ping{1, ""});
  frame[5] = 9;  // version 0x0901
  ASSERT_TRUE(assembler.Feed(frame).ok());
  EXPECT_EQ(assembler.Pop().status().code(), StatusCode::kUnimplemented);
}

TEST_F(FrameAssemblerTest, CustomLimits) {
  FrameLimits limits;
  limits.max_payload_bytes = 64;
  FrameAssembler assembler(limits);
  ASSERT_TRUE(assembler.Feed(EncodeFrame(Ping{1, std::string(100, 'x')})).ok());
  EXPECT_EQ(assembler.Pop().status().code(), StatusCode::kResourceExhausted);
  // A peer that pushes bytes without the caller popping is cut off.
  FrameAssembler flood(limits);
  std::vector<uint8_t> junk(1000, 0);
  EXPECT_EQ(flood.Feed(junk).code(), StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace mineru::shm
