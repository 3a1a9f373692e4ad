// Logging for programs (the daemon and the tools); library code returns Status instead of logging.
// Lines go to stderr, or to journald with structured fields when stderr is connected to the journal
// (systemd sets $JOURNAL_STREAM to stderr's device:inode).
//
//   MINERU_LOG(kInfo) << "listening on " << path;
#pragma once

#include <functional>
#include <sstream>
#include <string>
#include <string_view>

namespace mineru {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

// Parses "debug", "info", "warning" (or "warn"), "error".
bool ParseLogLevel(std::string_view text, LogLevel* level);
std::string_view LogLevelName(LogLevel level);

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
// The program name shown on stderr lines and as SYSLOG_IDENTIFIER.
void SetLogIdentifier(std::string identifier);

enum class LogSink { kStderr, kJournal };
// The sink chosen from the environment at first use (journald when $JOURNAL_STREAM matches stderr).
LogSink ActiveLogSink();

// Tests capture lines here instead of stderr/journald; pass nullptr to restore.
using LogCapture = std::function<void(LogLevel, std::string_view file, int line, std::string_view msg)>;
void SetLogCaptureForTest(LogCapture capture);

// Emits one line. Thread-safe; lines are never interleaved.
void LogLine(LogLevel level, const char* file, int line, std::string_view message);

namespace internal {
class LogMessage {
 public:
  LogMessage(LogLevel level, const char* file, int line) : level_(level), file_(file), line_(line) {}
  ~LogMessage() { LogLine(level_, file_, line_, stream_.str()); }
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  const char* file_;
  int line_;
  std::ostringstream stream_;
};
}  // namespace internal

}  // namespace mineru

#define MINERU_LOG(level)                                    \
  if (::mineru::LogLevel::level < ::mineru::GetLogLevel()) { \
  } else                                                     \
    ::mineru::internal::LogMessage(::mineru::LogLevel::level, __FILE__, __LINE__).stream()
