#include "common/status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace mineru {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesCodeMessageAndErrno) {
  Status s(StatusCode::kIoError, "reading spool", EIO);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), "reading spool");
  EXPECT_EQ(s.sys_errno(), EIO);
  EXPECT_NE(s.ToString().find("Input/output error"), std::string::npos) << s.ToString();
}

TEST(StatusTest, WithContextPrefixesMessageAndKeepsCode) {
  Status s = NotFound("no such tensor").WithContext("model.safetensors");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "model.safetensors: no such tensor");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

TEST(StatusTest, ErrnoMappingIsTheOnePlace) {
  EXPECT_EQ(ErrnoToStatusCode(ENOENT), StatusCode::kNotFound);
  EXPECT_EQ(ErrnoToStatusCode(EACCES), StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoToStatusCode(ENOSPC), StatusCode::kResourceExhausted);
  EXPECT_EQ(ErrnoToStatusCode(EAGAIN), StatusCode::kBusy);
  EXPECT_EQ(ErrnoToStatusCode(ECONNREFUSED), StatusCode::kUnavailable);
  EXPECT_EQ(ErrnoToStatusCode(ETIMEDOUT), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(ErrnoToStatusCode(EINVAL), StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrnoToStatusCode(EIO), StatusCode::kIoError);
  Status s = ErrnoStatus(ENOSPC, "write job.tmp");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.sys_errno(), ENOSPC);
  EXPECT_EQ(s.message(), "write job.tmp: No space left on device");
  // The errno text is not repeated by ToString when the message already has it.
  EXPECT_EQ(s.ToString(), "write job.tmp: No space left on device");
}

Status FailsWhen(bool fail) {
  MINERU_RETURN_IF_ERROR(fail ? Busy("queue full") : Status::Ok());
  return Internal("reached the end");
}

TEST(StatusTest, ReturnIfErrorReturnsEarly) {
  EXPECT_EQ(FailsWhen(true).code(), StatusCode::kBusy);
  EXPECT_EQ(FailsWhen(false).code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace mineru
