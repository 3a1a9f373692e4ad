// minerud's configuration: one struct, every key declared once in ConfigSchemaFor() with its help
// text (documented again for people in man/minerud.conf.5). Filled from /etc/minerud.conf (or
// --config) and then from command-line overrides.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/config_loader.h"

namespace mineru {

struct Config {
  // Where clients connect. Empty: $XDG_RUNTIME_DIR/minerud.sock for a user, /run/minerud/minerud.sock
  // for root; ignored when systemd hands over a listening socket.
  std::string socket_path;
  // Permissions of the socket file minerud creates (octal); not used for an activated socket.
  std::string socket_mode = "0660";
  // Spool of accepted jobs and kept results. Empty: $XDG_STATE_HOME/minerud or /var/lib/minerud.
  std::string state_dir;
  // The MinerU 2.0 model folder (HF layout), or the name of one in models_dir (no '/': what
  // `mineructl model pull` writes). Empty: the text-layer backend, no model needed.
  std::string model_dir;
  // Which backend parses documents: "auto" (the model when model_dir is set, else the text layer),
  // "text-layer", "model", or "remote" (OpenAI-compatible chat-completions servers at remote_url).
  std::string backend = "auto";
  // Where named models live. Empty: /var/lib/minerud/models for root, $XDG_DATA_HOME/minerud/models
  // (~/.local/share/minerud/models) for a user.
  std::string models_dir;
  std::string log_level = "info";

  // Memory.
  uint64_t vram_budget_bytes = 0;    // 0: all free device memory at start (the whole model on CPU)
  uint64_t pinned_budget_bytes = 0;  // 0: every weight, plus the KV pool with preemption = swap
  int64_t keep_alive_ms = 300'000;   // weights drop to pinned/disk after this long without a job
  int64_t kv_page_tokens = 16;
  int64_t prefill_chunk_tokens = 2048;
  int64_t max_batch = 16;
  int64_t max_new_tokens = 0;   // per page; 0: the checkpoint's generation config (16384 for MinerU 2.0)
  int64_t kv_cache_tokens = 0;  // KV pool size in tokens; 0: from the budget (memory plan)

  // The model's page pipeline (pipeline/page_scheduler.h).
  int64_t step_tokens = 0;              // rows of one model step; 0: prefill_chunk + max_batch
  int64_t vision_batch_tokens = 16384;  // image tokens encoded in one vision burst (at least one page)
  int64_t max_pages_per_user = 0;       // one user's pages in the model at once; 0: max_batch
  std::string compute_dtype = "auto";   // auto (the checkpoint's), bf16 or f32
  int64_t compute_threads = 0;          // libtorch intra-op threads of the model; 0: UsableCpus()
  std::string preemption = "swap";      // swap (KV to host memory) or recompute
  std::string batching = "continuous";  // continuous, or static (the whole batch ends together)

  // Remote model servers (backend = remote).
  std::string remote_urls;          // key remote_url: one or more base URLs, separated by spaces or commas
  std::string remote_api_key_file;  // a file holding the bearer token sent to them; never logged
  int64_t remote_concurrency = 8;   // requests in flight per server
  int64_t remote_timeout_ms = 300'000;  // most time one page's request may take

  // The OpenAI-compatible HTTP listener (daemon/http_listener.h): other machines' and apps' clients
  // use this minerud's model as they would a vLLM server.
  std::string http_listen;            // HOST:PORT or PORT (then 127.0.0.1); empty: no listener
  std::string http_token_file;        // bearer token clients must send; required off loopback
  int64_t http_max_connections = 64;  // more are answered 503 and closed
  uint64_t http_max_body_bytes = 64ull << 20;
  int64_t http_timeout_ms = 10'000;  // most time to receive one request (all of it) or send an answer

  // Work.
  int64_t workers = 0;  // parsing threads; 0: one per core
  int64_t render_dpi = 200;
  // OCR of pages without a usable text layer (scans), by the text-layer backend.
  bool ocr = true;                            // false: such pages are reported as needing OCR
  std::string ocr_languages = "eng+chi_sim";  // Tesseract languages joined by '+'
  int64_t ocr_page_time_limit_ms = 30'000;    // recognition of one page stops there

  // Limits.
  int64_t max_jobs_queued = 256;
  int64_t max_jobs_per_user = 32;
  uint64_t max_document_bytes = 512ull << 20;
  uint64_t max_bytes_per_user = 2ull << 30;
  int64_t max_pages_per_document = 2000;
  int64_t max_seconds_per_document = 3600;
  uint64_t mupdf_memory_bytes = 1ull << 30;  // MuPDF allocator cap per document
  // Starts of one job that may end with minerud gone (a crash, kill -9, the watchdog) before the job
  // is failed instead of run again.
  int64_t max_attempts = 3;
  // Documents are opened, rendered and parsed in sandboxed worker processes (minerud-worker). Empty:
  // minerud-worker next to the minerud executable.
  std::string document_worker;
  // Address-space limit (RLIMIT_AS) of a document worker; 0: mupdf_memory + 1 GiB.
  uint64_t worker_memory_bytes = 0;

  // Lifecycle.
  int64_t drain_timeout_ms = 30'000;
  int64_t result_retention_ms = 86'400'000;
  std::string admin_group;  // members may see and cancel every user's jobs
};

// The schema of every key above.
const ConfigSchema<Config>& ConfigSchemaFor();

// "eng+chi_sim" -> OK when every name is letters, digits and '_' and the list is not empty (a list of
// Tesseract languages: the ocr_languages key, mineru-parse --ocr-languages, the OCR itself).
Status CheckOcrLanguages(std::string_view languages);

// The configuration file minerud reads when no --config is given (a missing one is fine); mineructl
// model pull reads its models_dir from there too.
inline constexpr char kSystemConfigPath[] = "/etc/minerud.conf";
// The system daemon's socket (minerud.socket, group minerud).
inline constexpr char kSystemSocketPath[] = "/run/minerud/minerud.sock";
// $XDG_RUNTIME_DIR/minerud.sock for a user, kSystemSocketPath for root.
std::string DefaultSocketPath();
// $XDG_STATE_HOME/minerud (or ~/.local/state/minerud) for a user, /var/lib/minerud for root.
std::string DefaultStateDir();
// $XDG_DATA_HOME/minerud/models (or ~/.local/share/minerud/models) for a user, /var/lib/minerud/models
// for root.
std::string DefaultModelsDir();
// http_listen parsed: an IPv4 or IPv6 literal (IPv6 in brackets) or "localhost", and a port (0: any
// free port). A bare port listens on 127.0.0.1.
struct HttpListenAddress {
  std::string host;  // the literal, without brackets
  uint16_t port = 0;
  bool loopback = false;  // 127.0.0.0/8 or ::1
};
Result<HttpListenAddress> ParseHttpListen(std::string_view text);

// remote_url split into its URLs (spaces or commas between them).
std::vector<std::string> SplitRemoteUrls(std::string_view urls);

// A model's name in models_dir: letters, digits, '.', '-', '_', not starting with '.' (folders whose
// names start with '.' there are downloads in progress).
bool IsModelName(std::string_view name);
// model_dir as a folder: a name (letters, digits, '.', '-', '_'; no '/', not starting with '.') is
// looked up in `models_dir`; anything else is a path, returned as given. "" stays "".
Result<std::string> ResolveModelDir(const std::string& model_dir, const std::string& models_dir);

}  // namespace mineru
