#include "pipeline/remote_server_pool.h"

#include <algorithm>

namespace mineru::pipeline {

RemoteServerPool::RemoteServerPool(RemoteServerPoolOptions options, MonoTime now)
    : options_(std::move(options)) {
  for (std::string url : options_.urls) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    RemoteServer s;
    s.url = std::move(url);
    s.next_probe = now;
    s.backoff = options_.min_backoff;
    servers_.push_back(std::move(s));
  }
}

int RemoteServerPool::Pick(const std::vector<bool>& allowed) {
  int best = -1;
  const size_t n = servers_.size();
  for (size_t k = 0; k < n; ++k) {
    const size_t i = (next_tie_ + k) % n;
    const RemoteServer& s = servers_[i];
    if (!allowed[i] || !s.in_rotation || s.outstanding >= options_.concurrency) continue;
    if (best < 0 || s.outstanding < servers_[best].outstanding) best = static_cast<int>(i);
  }
  if (best >= 0) next_tie_ = (static_cast<size_t>(best) + 1) % n;
  return best;
}

bool RemoteServerPool::AnyInRotation(const std::vector<bool>& allowed) const {
  for (size_t i = 0; i < servers_.size(); ++i) {
    if (allowed[i] && servers_[i].in_rotation) return true;
  }
  return false;
}

void RemoteServerPool::OnRequestStart(size_t i) {
  ++servers_[i].outstanding;
  ++servers_[i].requests;
}

void RemoteServerPool::OnRequestEnd(size_t i) { --servers_[i].outstanding; }

void RemoteServerPool::OnServerFailure(size_t i, const std::string& error, MonoTime now) {
  ++servers_[i].failures;
  TakeOut(i, error, now);
}

void RemoteServerPool::TakeOut(size_t i, const std::string& error, MonoTime now) {
  RemoteServer& s = servers_[i];
  s.last_error = error;
  if (s.in_rotation) {
    // Freshly out: the first probe comes after the shortest back-off.
    s.in_rotation = false;
    s.backoff = options_.min_backoff;
    if (!s.probing) s.next_probe = now + s.backoff;
  }
}

std::vector<size_t> RemoteServerPool::ProbesDue(MonoTime now) const {
  std::vector<size_t> due;
  for (size_t i = 0; i < servers_.size(); ++i) {
    const RemoteServer& s = servers_[i];
    if (!s.in_rotation && !s.probing && s.next_probe <= now) due.push_back(i);
  }
  return due;
}

void RemoteServerPool::OnProbeSuccess(size_t i, std::string model_id) {
  RemoteServer& s = servers_[i];
  s.probing = false;
  s.in_rotation = true;
  s.model_id = std::move(model_id);
  s.backoff = options_.min_backoff;
  s.last_error.clear();
}

void RemoteServerPool::OnProbeFailure(size_t i, const std::string& error, MonoTime now) {
  RemoteServer& s = servers_[i];
  s.probing = false;
  s.in_rotation = false;
  s.last_error = error;
  s.next_probe = now + s.backoff;
  s.backoff = std::min(s.backoff * 2, options_.max_backoff);
}

MonoTime RemoteServerPool::NextProbe() const {
  MonoTime next = MonoTime::max();
  for (const RemoteServer& s : servers_) {
    if (!s.in_rotation && !s.probing) next = std::min(next, s.next_probe);
  }
  return next;
}

size_t RemoteServerPool::InRotation() const {
  return static_cast<size_t>(
      std::count_if(servers_.begin(), servers_.end(), [](const RemoteServer& s) { return s.in_rotation; }));
}

}  // namespace mineru::pipeline
