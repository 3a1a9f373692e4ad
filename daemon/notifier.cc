#include "daemon/notifier.h"

#include <systemd/sd-daemon.h>
#include <time.h>

#include <cstdlib>

namespace mineru::daemon {

Notifier::Notifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket != nullptr && socket[0] != '\0';
  uint64_t usec = 0;
  if (sd_watchdog_enabled(/*unset_environment=*/0, &usec) > 0) watchdog_usec_ = usec;
}

void Notifier::Send(const std::string& state) {
  if (enabled_) sd_notify(/*unset_environment=*/0, state.c_str());
}

void Notifier::Ready() { Send("READY=1"); }

void Notifier::Status(const std::string& text) {
  std::string line = "STATUS=";
  for (char c : text) line += (c == '\n' ? ' ' : c);
  Send(line);
}

void Notifier::Stopping() { Send("STOPPING=1"); }

void Notifier::Reloading() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t usec = static_cast<uint64_t>(ts.tv_sec) * 1'000'000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
  Send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec));
}

void Notifier::WatchdogPing() { Send("WATCHDOG=1"); }

}  // namespace mineru::daemon
