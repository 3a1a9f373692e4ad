// RemoteServerPool: the bookkeeping of the remote backend's servers, apart from the transfers
// (remote_client.h). Which server a page goes to (the least outstanding requests among those in
// rotation with a free slot; ties go round the pool), which servers are out of rotation and when each
// is next asked whether it answers again (back-off doubling from min_backoff to max_backoff).
// A server starts out of rotation with a probe due at once: it joins when it first answers.
// Not thread-safe: the client's one thread owns it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"

namespace mineru::pipeline {

struct RemoteServerPoolOptions {
  std::vector<std::string> urls;
  int64_t concurrency = 8;  // requests in flight per server
  std::chrono::milliseconds min_backoff{250};
  std::chrono::milliseconds max_backoff{30'000};
};

struct RemoteServer {
  std::string url;       // as configured, without a trailing '/'
  std::string model_id;  // from its model list, once it answered
  bool in_rotation = false;
  bool probing = false;  // a probe is in flight
  int64_t outstanding = 0;
  MonoTime next_probe;
  std::chrono::milliseconds backoff{0};
  std::string last_error;
  uint64_t requests = 0;
  uint64_t failures = 0;
};

class RemoteServerPool {
 public:
  explicit RemoteServerPool(RemoteServerPoolOptions options, MonoTime now);

  size_t size() const { return servers_.size(); }
  const RemoteServer& server(size_t i) const { return servers_[i]; }

  // The server for the next request among those `allowed[i]` (a page's servers it has not used up):
  // in rotation, below the concurrency, fewest outstanding. -1 when none.
  int Pick(const std::vector<bool>& allowed);
  // Whether any allowed server is in rotation (a page that cannot go now is waiting for a slot, not
  // for a server to come back).
  bool AnyInRotation(const std::vector<bool>& allowed) const;

  void OnRequestStart(size_t i);
  void OnRequestEnd(size_t i);
  // A request failed through the server's fault: out of rotation, probed after the back-off.
  void OnServerFailure(size_t i, const std::string& error, MonoTime now);

  // Servers out of rotation whose probe is due and not yet running.
  std::vector<size_t> ProbesDue(MonoTime now) const;
  void OnProbeStart(size_t i) { servers_[i].probing = true; }
  // The probe's answer: the server's model id, or why it did not answer.
  void OnProbeSuccess(size_t i, std::string model_id);
  void OnProbeFailure(size_t i, const std::string& error, MonoTime now);
  // The earliest probe still to start (MonoTime::max() when none).
  MonoTime NextProbe() const;
  size_t InRotation() const;

 private:
  void TakeOut(size_t i, const std::string& error, MonoTime now);

  RemoteServerPoolOptions options_;
  std::vector<RemoteServer> servers_;
  size_t next_tie_ = 0;
};

}  // namespace mineru::pipeline
