#include "common/thread_pool.h"

#include <future>
#include <thread>

namespace mineru {

void ThreadPool::Run(std::function<void()> task) {
  std::lock_guard lock(mu_);
  tasks_.push_back(std::move(task));
  // Each idle thread takes one queued task; a task beyond them gets a thread of its own if one may start.
  if (static_cast<int64_t>(tasks_.size()) <= idle_ || threads_ >= max_threads_) {
    work_cv_.notify_one();
    return;
  }
  ++threads_;
  std::thread([this] { Loop(); }).detach();
}

void ThreadPool::Call(const std::function<void()>& work) {
  std::promise<void> done;
  Run([&] {
    try {
      work();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  done.get_future().get();
}

void ThreadPool::Loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    ++idle_;
    work_cv_.wait_for(lock, keep_idle_, [&] { return !tasks_.empty() || closing_; });
    --idle_;
    if (tasks_.empty()) break;  // idle for keep_idle_, or closing
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // its captures go before the pool may
    lock.lock();
  }
  --threads_;
  ended_cv_.notify_all();
}

void ThreadPool::Close() {
  std::unique_lock lock(mu_);
  closing_ = true;
  work_cv_.notify_all();
  ended_cv_.wait(lock, [&] { return threads_ == 0; });
  closing_ = false;
}

int64_t ThreadPool::threads() const {
  std::lock_guard lock(mu_);
  return threads_;
}

int64_t ThreadPool::idle_threads() const {
  std::lock_guard lock(mu_);
  return idle_;
}

}  // namespace mineru
