// SpoolWriter: see spool_writer.h. One thread, one task at a time, completions handed to the loop.
#include "daemon/spool_writer.h"

#include <pthread.h>

namespace mineru::daemon {

SpoolWriter::SpoolWriter(Options options) : options_(std::move(options)) {
  thread_ = std::thread([this] { Run(); });
}

SpoolWriter::~SpoolWriter() {
  std::deque<Task> dropped;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(tasks_);
  }
  cv_.notify_all();
  for (const Task& t : dropped) options_.scheduler->Release(t.reservation);
  thread_.join();
}

void SpoolWriter::Enqueue(Task task) {
  {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

std::vector<SpoolWriter::Completion> SpoolWriter::TakeCompletions() {
  std::lock_guard lock(mu_);
  std::vector<Completion> out;
  out.swap(completions_);
  return out;
}

bool SpoolWriter::Idle() const {
  std::lock_guard lock(mu_);
  return tasks_.empty() && !busy_ && completions_.empty();
}

void SpoolWriter::Run() {
  // Named, for people (top -H, gdb) and for the tests that hold it at the disk with ptrace.
  pthread_setname_np(pthread_self(), "minerud-spool");
  for (;;) {
    std::optional<Task> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, nothing left
      task.emplace(std::move(tasks_.front()));
      tasks_.pop_front();
      busy_ = true;
    }
    Completion c;
    c.session_id = task->session_id;
    c.request_id = task->request_id;
    c.watch = task->watch;
    Status start = options_.scheduler->StartWrite(task->reservation);
    if (start.ok()) {
      if (options_.before_write) options_.before_write();  // counts as part of the write
      c.job = options_.scheduler->Write(task->reservation, task->document.bytes());
      if (c.job.ok()) c.document = task->document.TakeFd();
    } else {
      c.job = start;
    }
    task.reset();  // unmaps the document now that it is on disk
    {
      std::lock_guard lock(mu_);
      completions_.push_back(std::move(c));
      busy_ = false;
    }
    if (options_.wake) options_.wake();
  }
}

}  // namespace mineru::daemon
