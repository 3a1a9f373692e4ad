// Server: minerud's event loop. One libuv loop on the main thread serves the listening socket and
// every session; the scheduler's workers wake it with uv_async_send and the callback drains all
// pending job events at once. Submitted documents are made durable on the spool thread (SpoolWriter),
// which wakes the loop the same way; its completions are handled before job events. SIGTERM/SIGINT drain and
// exit, SIGHUP reloads the config, a 1 s timer pings the watchdog (only while every worker and the model
// thread is within its deadline, see common/watchdog.h), updates STATUS= and expires old results.
// With http_listen, an HttpListener serves OpenAI clients on its own threads (http_listener.h); it
// stops taking pages when the drain begins.
//
// Loop thread only, except the wake-up, which any thread may trigger.
#pragma once

#include <uv.h>

#include <cstdint>
#include <map>
#include <memory>

#include "common/config.h"
#include "common/result.h"
#include "daemon/daemon_options.h"
#include "daemon/http_listener.h"
#include "daemon/listener.h"
#include "daemon/notifier.h"
#include "daemon/pipeline_types.h"
#include "daemon/request_handler.h"
#include "daemon/scheduler.h"
#include "daemon/session.h"
#include "daemon/spool.h"
#include "daemon/spool_writer.h"

namespace mineru::daemon {

class Server {
 public:
  struct Options {
    DaemonOptions command_line;  // to re-read the config on SIGHUP
    Config config;
    ListenSocket listen;
    std::unique_ptr<Backend> backend;
    std::string model_description;  // one line for InfoReply; empty without a model
  };

  // Opens the spool, recovers its jobs and prepares the loop. Nothing is served until Run().
  static Result<std::unique_ptr<Server>> Create(Options options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Serves until SIGTERM/SIGINT and the drain; returns the process exit code.
  int Run();

 private:
  explicit Server(Options options);
  Status Init();
  Status StartHttpListener();

  static void OnListenReadable(uv_poll_t* handle, int status, int events);
  static void OnWake(uv_async_t* handle);
  static void OnSignal(uv_signal_t* handle, int signum);
  static void OnTick(uv_timer_t* handle);

  void AcceptAll();
  void DispatchEvents();
  void FinishSpooled();
  void BeginShutdown();
  void CheckDrained();
  void Reload();
  void PublishStatus();
  void CheckWatchdog();
  void CloseAllHandles();

  Options options_;
  uv_loop_t loop_{};
  uv_poll_t listen_poll_{};
  uv_async_t wake_{};
  uv_signal_t sigterm_{};
  uv_signal_t sigint_{};
  uv_signal_t sighup_{};
  uv_timer_t tick_{};
  bool loop_ready_ = false;
  bool listening_ = false;

  Notifier notifier_;
  std::optional<Spool> spool_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<SpoolWriter> spool_writer_;  // destroyed before scheduler_
  std::unique_ptr<RequestHandler> handler_;
  std::unique_ptr<HttpListener> http_;  // http_listen; destroyed before the backend it uses
  std::map<uint64_t, std::unique_ptr<Session>> sessions_;
  uint64_t next_session_id_ = 1;
  uint64_t sessions_total_ = 0;
  MonoTime started_at_ = MonoNow();
  std::string overdue_;      // the threads past their deadline at the last tick; empty while none
  std::string last_status_;  // the last STATUS= sent; sent again only when it changes

  bool shutting_down_ = false;
  bool interrupted_ = false;
  Deadline drain_deadline_;
  int exit_code_ = 0;
};

}  // namespace mineru::daemon
