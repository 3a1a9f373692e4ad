// FairQueue: waiting items shared out round robin, first between users, then between the jobs of a
// user, one item at a time. A user not in the rotation joins at its front, so a newcomer's first page
// is the next one served: a one-page job behind another user's 300-page job waits for one item, not
// 300. Within a job, items keep their order (PushFront puts a preempted page back at its job's head).
// Not thread-safe: the page scheduler owns it on its one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace mineru::pipeline {

template <class T>
class FairQueue {
 public:
  // A new item at the back of its job; a user new to the rotation joins its front.
  void Push(uint32_t user, uint64_t job, T item) { Slot(user, job, true).push_back(std::move(item)); }
  // An item put back at the head of its job; a user new to the rotation joins its back (a page sent
  // back to make room for another user is not served before that user).
  void PushFront(uint32_t user, uint64_t job, T item) { Slot(user, job, false).push_front(std::move(item)); }

  // Whether `pred` holds for any user with items.
  bool AnyUser(const std::function<bool(uint32_t user)>& pred) const {
    for (uint32_t user : rotation_) {
      if (pred(user)) return true;
    }
    return false;
  }

  // The next item of the first user in rotation order for whom `eligible(user)` holds; that user then
  // moves to the back of the rotation, and its job to the back of its jobs. nullopt when none.
  std::optional<T> Pop(const std::function<bool(uint32_t user)>& eligible = {}) {
    for (auto u = rotation_.begin(); u != rotation_.end(); ++u) {
      const uint32_t user = *u;
      if (eligible && !eligible(user)) continue;
      User& jobs = users_.at(user);
      const uint64_t job = jobs.order.front();
      std::deque<T>& items = jobs.items.at(job);
      T item = std::move(items.front());
      items.pop_front();
      jobs.order.pop_front();
      if (items.empty()) {
        jobs.items.erase(job);
      } else {
        jobs.order.push_back(job);
      }
      rotation_.erase(u);
      if (jobs.order.empty()) {
        users_.erase(user);
      } else {
        rotation_.push_back(user);
      }
      --size_;
      return item;
    }
    return std::nullopt;
  }

  // Takes out every item for which `remove` holds (a job's, when cancelled) and hands them back.
  std::vector<T> RemoveIf(const std::function<bool(const T&)>& remove) {
    std::vector<T> out;
    for (auto& [user, jobs] : users_) {
      for (auto& [job, items] : jobs.items) {
        for (auto it = items.begin(); it != items.end();) {
          if (remove(*it)) {
            out.push_back(std::move(*it));
            it = items.erase(it);
          } else {
            ++it;
          }
        }
      }
    }
    size_ -= out.size();
    Prune();
    return out;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  struct User {
    std::deque<uint64_t> order;               // jobs with items, next first
    std::map<uint64_t, std::deque<T>> items;  // by job
  };

  std::deque<T>& Slot(uint32_t user, uint64_t job, bool new_user_first) {
    auto [u, new_user] = users_.try_emplace(user);
    if (new_user && new_user_first) rotation_.push_front(user);
    if (new_user && !new_user_first) rotation_.push_back(user);
    auto [j, new_job] = u->second.items.try_emplace(job);
    if (new_job) u->second.order.push_back(job);
    ++size_;
    return j->second;
  }

  // Drops jobs and users left without items.
  void Prune() {
    for (auto u = rotation_.begin(); u != rotation_.end();) {
      User& jobs = users_.at(*u);
      for (auto j = jobs.items.begin(); j != jobs.items.end();) {
        if (j->second.empty()) {
          std::erase(jobs.order, j->first);
          j = jobs.items.erase(j);
        } else {
          ++j;
        }
      }
      if (jobs.order.empty()) {
        users_.erase(*u);
        u = rotation_.erase(u);
      } else {
        ++u;
      }
    }
  }

  std::deque<uint32_t> rotation_;  // users with items, next first
  std::map<uint32_t, User> users_;
  size_t size_ = 0;
};

}  // namespace mineru::pipeline
