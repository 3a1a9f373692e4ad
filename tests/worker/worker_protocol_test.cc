// The worker protocol from minerud's side: bundles and messages a worker sends are taken only when
// every size, name and seal checks out.
#include "worker/worker_protocol.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "shm/document_buffer.h"

namespace mineru::worker {
namespace {

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A sealed memfd holding exactly `bytes`.
std::pair<UniqueFd, uint64_t> Sealed(const std::string& bytes) {
  auto buffer = shm::DocumentBuffer::CopyOf(Bytes(bytes));
  EXPECT_TRUE(buffer.ok());
  auto fd = buffer->Seal();
  EXPECT_TRUE(fd.ok());
  return {std::move(*fd), bytes.size()};
}

std::string Raw(uint32_t magic, uint32_t version, uint32_t count) {
  std::string s(16, '\0');
  std::memcpy(s.data(), &magic, 4);
  std::memcpy(s.data() + 4, &version, 4);
  std::memcpy(s.data() + 8, &count, 4);
  return s;
}

std::string Entry(uint32_t name_bytes, uint64_t data_bytes, const std::string& rest) {
  std::string s(16, '\0');
  std::memcpy(s.data(), &name_bytes, 4);
  std::memcpy(s.data() + 8, &data_bytes, 8);
  return s + rest;
}

constexpr uint32_t kMagic = 0x424b574du;

TEST(WorkerBundleTest, RoundTripKeepsNamesAndBytes) {
  std::string md = "# Title\n", empty;
  const BundleEntry entries[] = {{"doc.md", Bytes(md)}, {"images/a.jpg", Bytes(empty)}};
  auto written = WriteBundle(entries);
  ASSERT_TRUE(written.ok());
  auto bundle = Bundle::Read(std::move(written->first), written->second, 1 << 20);
  ASSERT_TRUE(bundle.ok()) << bundle.status().ToString();
  ASSERT_EQ(bundle->entries().size(), 2u);
  EXPECT_EQ(bundle->entries()[0].name, "doc.md");
  EXPECT_EQ(std::string(bundle->Find("doc.md").begin(), bundle->Find("doc.md").end()), md);
  EXPECT_TRUE(bundle->Find("images/a.jpg").empty());
  EXPECT_TRUE(bundle->Find("missing").empty());
}

TEST(WorkerBundleTest, HostileBundlesAreDataLoss) {
  const std::string cases[] = {
      Raw(kMagic + 1, 1, 0),                               // wrong magic
      Raw(kMagic, 2, 0),                                   // wrong version
      Raw(kMagic, 1, 1),                                   // an entry past the end
      Raw(kMagic, 1, 1) + Entry(100, 0, "short"),          // a name past the end
      Raw(kMagic, 1, 1) + Entry(1, ~0ull, "x"),            // data past the end (overflow)
      Raw(kMagic, 1, 1) + Entry(1, 1, "xy") + "trailing",  // bytes after the last entry
      Raw(kMagic, 1, 0xffffffffu),                         // a count beyond any limit
      std::string("tiny"),                                 // shorter than a header
  };
  for (const std::string& c : cases) {
    auto [fd, size] = Sealed(c);
    auto bundle = Bundle::Read(std::move(fd), size, 1 << 20);
    ASSERT_FALSE(bundle.ok());
    EXPECT_EQ(bundle.status().code(), StatusCode::kDataLoss);
  }
}

TEST(WorkerBundleTest, UnsealedWrongSizeOrOversizedMemfdsAreRefused) {
  auto memfd = shm::CreateMemfd("unsealed");
  ASSERT_TRUE(memfd.ok());
  const std::string header = Raw(kMagic, 1, 0);
  ASSERT_EQ(::write(memfd->get(), header.data(), header.size()), static_cast<ssize_t>(header.size()));
  EXPECT_FALSE(Bundle::Read(std::move(*memfd), header.size(), 1 << 20).ok()) << "unsealed";
  auto [fd, size] = Sealed(header);
  EXPECT_FALSE(Bundle::Read(std::move(fd), size + 1, 1 << 20).ok()) << "declared size differs";
  auto [fd2, size2] = Sealed(header);
  EXPECT_FALSE(Bundle::Read(std::move(fd2), size2, size2 - 1).ok()) << "over the cap";
}

TEST(WorkerMessageTest, OnlyWholeMessagesOfThisVersionWithAtMostOneFd) {
  auto pair = MessageSocketPair();
  ASSERT_TRUE(pair.ok());
  Message m;
  m.type = MessageType::kOpened;
  m.count = 7;
  SetText(m, std::string(5000, 'x'));  // truncated to fit
  ASSERT_TRUE(SendMessage(pair->first.get(), m).ok());
  auto got = ReceiveMessage(pair->second.get());
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->message.count, 7);
  EXPECT_EQ(GetText(got->message).size(), kMaxText - 1);

  ASSERT_EQ(::send(pair->first.get(), "short", 5, 0), 5);
  EXPECT_EQ(ReceiveMessage(pair->second.get()).status().code(), StatusCode::kDataLoss);

  Message bad = m;
  bad.version = kProtocolVersion + 1;
  ASSERT_TRUE(SendMessage(pair->first.get(), bad).ok());
  EXPECT_EQ(ReceiveMessage(pair->second.get()).status().code(), StatusCode::kDataLoss);

  bad = m;
  bad.type = static_cast<MessageType>(999);
  ASSERT_TRUE(SendMessage(pair->first.get(), bad).ok());
  EXPECT_EQ(ReceiveMessage(pair->second.get()).status().code(), StatusCode::kDataLoss);

  pair->first.reset();
  EXPECT_EQ(ReceiveMessage(pair->second.get()).status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace mineru::worker
