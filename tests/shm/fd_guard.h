// Test helper: the number of open fds of this process (/proc/self/fd), and a fixture that fails a
// test which leaves it changed.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace mineru::shm::testing {

inline int CountOpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int n = 0;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the DIR's own fd
}

class FdLeakTest : public ::testing::Test {
 protected:
  void SetUp() override { fds_before_ = CountOpenFds(); }
  void TearDown() override { EXPECT_EQ(CountOpenFds(), fds_before_) << "the test leaked or closed fds"; }

 private:
  int fds_before_ = 0;
};

}  // namespace mineru::shm::testing
