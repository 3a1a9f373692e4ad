// Printer: how every mineructl command speaks: for people on stdout and stderr (a progress bar when
// stderr is a terminal), or JSON lines on stdout with --json; errors become the exit code.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "client/ctl_options.h"

namespace mineru::ctl {

class Printer {
 public:
  explicit Printer(const CtlOptions& o) : o_(o), tty_(::isatty(STDERR_FILENO) == 1) {}

  bool json() const { return o_.json; }
  bool quiet() const { return o_.quiet; }
  bool tty() const { return tty_; }
  void Json(const nlohmann::json& j) const {
    std::fputs((j.dump() + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
  void Line(const std::string& s) const { std::fputs((s + "\n").c_str(), stdout); }

  // Prints the error (as JSON on stdout with --json, else on stderr) and returns its exit code
  // (`exit_code`, or the one for its status code).
  int Error(const Status& s, const std::string& hint = "", int exit_code = -1) const {
    int code = exit_code >= 0 ? exit_code : ExitCodeFor(s.code());
    std::string message = s.message();
    if (s.code() == StatusCode::kUnavailable && TalksToDaemon(o_.command)) {
      message +=
          "; start minerud with `systemctl start minerud.socket` (system service), "
          "`systemctl --user start minerud` or `minerud &` (by hand)";
    }
    if (!hint.empty()) message += " (" + hint + ")";
    if (o_.json) {
      Json({{"error", message}, {"code", std::string(StatusCodeName(s.code()))}, {"exit_code", code}});
    } else {
      std::fprintf(stderr, "mineructl: %s\n", message.c_str());
    }
    return code;
  }

  void Progress(const std::string& name, uint64_t id, uint32_t done, uint32_t total) {
    if (o_.json) {
      Json({{"event", "progress"}, {"job_id", id}, {"pages_done", done}, {"pages_total", total}});
      return;
    }
    if (o_.quiet) return;
    if (tty_) {
      int width = 30;
      int filled = total == 0 ? 0 : static_cast<int>(static_cast<uint64_t>(width) * done / total);
      std::fprintf(stderr, "\r%s [%s%s] %u/%u pages", name.c_str(), std::string(filled, '#').c_str(),
                   std::string(width - filled, ' ').c_str(), done, total);
      std::fflush(stderr);
      bar_open_ = true;
    } else if (total > 0) {
      std::fprintf(stderr, "%s: page %u/%u\n", name.c_str(), done, total);
    }
  }
  void EndBar() {
    if (bar_open_) std::fputc('\n', stderr);
    bar_open_ = false;
  }

 private:
  const CtlOptions& o_;
  bool tty_;
  bool bar_open_ = false;
};

}  // namespace mineru::ctl
