#include "common/mapped_region.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "common/unique_fd.h"

namespace mineru {
namespace {

UniqueFd MemfdWith(const std::string& bytes) {
  UniqueFd fd(::memfd_create("mapped_region_test", MFD_CLOEXEC));
  EXPECT_TRUE(fd.valid());
  EXPECT_EQ(::write(fd.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  return fd;
}

TEST(MappedRegionTest, MapsAWholeFileReadOnly) {
  std::string bytes(10000, 'a');
  bytes[9999] = 'z';
  UniqueFd fd = MemfdWith(bytes);
  auto region = MappedRegion::Map(fd.get(), MapOptions{});
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  fd.reset();  // the mapping outlives the fd
  EXPECT_EQ(region->size(), 10000u);
  EXPECT_EQ(region->data()[0], 'a');
  EXPECT_EQ(region->data()[9999], 'z');
}

TEST(MappedRegionTest, RangesArePageCheckedAndBounded) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  std::string bytes(page * 2, 'b');
  UniqueFd fd = MemfdWith(bytes);
  EXPECT_EQ(MappedRegion::Map(fd.get(), {.offset_bytes = 100}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MappedRegion::Map(fd.get(), {.offset_bytes = page, .size_bytes = page + 1}).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(MappedRegion::Map(fd.get(), {.offset_bytes = page * 4}).status().code(), StatusCode::kOutOfRange);
  auto second = MappedRegion::Map(fd.get(), {.offset_bytes = page});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->size(), page);
}

TEST(MappedRegionTest, WritableMappingWritesThrough) {
  UniqueFd fd = MemfdWith(std::string(4096, '\0'));
  {
    auto region = MappedRegion::Map(fd.get(), {.writable = true});
    ASSERT_TRUE(region.ok());
    std::memcpy(region->data(), "hello", 5);
  }
  char buf[5];
  ASSERT_EQ(::pread(fd.get(), buf, 5, 0), 5);
  EXPECT_EQ(std::string(buf, 5), "hello");
}

TEST(MappedRegionTest, MoveAndReset) {
  auto anon = MappedRegion::Anonymous(1 << 16);
  ASSERT_TRUE(anon.ok());
  MappedRegion a = std::move(anon).value();
  a.data()[123] = 7;
  MappedRegion b = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.data()[123], 7);
  EXPECT_TRUE(b.AdviseWillNeed(0, 4096).ok());
  EXPECT_EQ(b.AdviseSequential(0, 1 << 20).code(), StatusCode::kOutOfRange);
  b.Reset();
  EXPECT_TRUE(b.empty());
}

TEST(MappedRegionTest, MissingFileNamesThePath) {
  auto r = MappedRegion::MapFile("/nonexistent/minerud-test");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("/nonexistent/minerud-test"), std::string::npos);
}

}  // namespace
}  // namespace mineru
