#include "common/log.h"

#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#if defined(MINERU_HAVE_SYSTEMD)
#include <systemd/sd-journal.h>
#endif

#include "common/clock.h"

namespace mineru {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mu;                       // guards g_identifier, g_capture and the write itself
std::string g_identifier = "minerud";  // Guarded by g_mu
LogCapture g_capture;                  // Guarded by g_mu

int SyslogPriority(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return LOG_DEBUG;
    case LogLevel::kInfo:
      return LOG_INFO;
    case LogLevel::kWarning:
      return LOG_WARNING;
    case LogLevel::kError:
      return LOG_ERR;
  }
  return LOG_INFO;
}

LogSink DetectSink() {
#if defined(MINERU_HAVE_SYSTEMD)
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr) return LogSink::kStderr;
  unsigned long long dev = 0, ino = 0;  // NOLINT(google-runtime-int): matches %llu
  if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return LogSink::kStderr;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return LogSink::kStderr;
  if (static_cast<unsigned long long>(st.st_dev) == dev &&  // NOLINT(google-runtime-int)
      static_cast<unsigned long long>(st.st_ino) == ino) {  // NOLINT(google-runtime-int)
    return LogSink::kJournal;
  }
#endif
  return LogSink::kStderr;
}

std::string_view BaseName(const char* file) {
  std::string_view f(file);
  auto slash = f.rfind('/');
  return slash == std::string_view::npos ? f : f.substr(slash + 1);
}

}  // namespace

bool ParseLogLevel(std::string_view text, LogLevel* level) {
  if (text == "debug")
    *level = LogLevel::kDebug;
  else if (text == "info")
    *level = LogLevel::kInfo;
  else if (text == "warning" || text == "warn")
    *level = LogLevel::kWarning;
  else if (text == "error")
    *level = LogLevel::kError;
  else
    return false;
  return true;
}

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level), std::memory_order_relaxed); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed)); }

void SetLogIdentifier(std::string identifier) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_identifier = std::move(identifier);
}

LogSink ActiveLogSink() {
  static const LogSink sink = DetectSink();
  return sink;
}

void SetLogCaptureForTest(LogCapture capture) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_capture = std::move(capture);
}

void LogLine(LogLevel level, const char* file, int line, std::string_view message) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_capture) {
    g_capture(level, BaseName(file), line, message);
    return;
  }
#if defined(MINERU_HAVE_SYSTEMD)
  if (ActiveLogSink() == LogSink::kJournal) {
    std::string code_file(BaseName(file));
    sd_journal_send("MESSAGE=%.*s", static_cast<int>(message.size()), message.data(), "PRIORITY=%d",
                    SyslogPriority(level), "SYSLOG_IDENTIFIER=%s", g_identifier.c_str(), "CODE_FILE=%s",
                    code_file.c_str(), "CODE_LINE=%d", line, nullptr);
    return;
  }
#endif
  (void)SyslogPriority;
  std::fprintf(stderr, "%s[%d] %s: %.*s\n", g_identifier.c_str(), static_cast<int>(::getpid()),
               std::string(LogLevelName(level)).c_str(), static_cast<int>(message.size()), message.data());
}

}  // namespace mineru
