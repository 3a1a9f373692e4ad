// Notifier: the daemon's messages to its service manager (sd_notify): READY, STATUS, STOPPING,
// RELOADING, WATCHDOG. Without systemd ($NOTIFY_SOCKET unset) every call does nothing, so the daemon
// runs the same way by hand in the foreground.
#pragma once

#include <cstdint>
#include <string>

namespace mineru::daemon {

class Notifier {
 public:
  // Reads $NOTIFY_SOCKET and $WATCHDOG_USEC/$WATCHDOG_PID once.
  Notifier();

  bool enabled() const { return enabled_; }
  // The watchdog interval systemd expects pings within; 0 when no watchdog is set.
  uint64_t watchdog_usec() const { return watchdog_usec_; }

  void Ready();
  void Status(const std::string& text);
  void Stopping();
  // RELOADING=1 with MONOTONIC_USEC, as Type=notify-reload expects; follow with Ready().
  void Reloading();
  void WatchdogPing();

 private:
  void Send(const std::string& state);

  bool enabled_ = false;
  uint64_t watchdog_usec_ = 0;
};

}  // namespace mineru::daemon
