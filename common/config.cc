#include "common/config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <functional>
#include <limits>
#include <vector>

#include "common/log.h"

namespace mineru {
namespace {

Status CheckSocketMode(std::string_view v) {
  bool ok = !v.empty() && v.size() <= 4;
  for (char c : v) ok = ok && c >= '0' && c <= '7';
  if (!ok || (v.size() == 4 && v[0] != '0')) {
    return InvalidArgument("'" + std::string(v) + "' is not an octal file mode like 0660");
  }
  return Status::Ok();
}

Status CheckLogLevel(std::string_view v) {
  LogLevel level;
  if (!ParseLogLevel(v, &level)) {
    return InvalidArgument("'" + std::string(v) + "' is not a log level (debug, info, warning, error)");
  }
  return Status::Ok();
}

// A check that accepts one of `choices` (listed in the error).
std::function<Status(std::string_view)> OneOf(std::vector<std::string> choices) {
  return [choices = std::move(choices)](std::string_view v) -> Status {
    std::string list;
    for (const std::string& c : choices) {
      if (v == c) return Status::Ok();
      list += (list.empty() ? "" : ", ") + c;
    }
    return InvalidArgument("'" + std::string(v) + "' is not one of " + list);
  };
}

Status CheckBackend(std::string_view v) {
  if (v == "auto" || v == "text-layer" || v == "model" || v == "remote") return Status::Ok();
  return InvalidArgument("'" + std::string(v) + "' is not a backend (auto, text-layer, model or remote)");
}

Status CheckRemoteUrls(std::string_view v) {
  for (const std::string& url : SplitRemoteUrls(v)) {
    if (!url.starts_with("http://") && !url.starts_with("https://")) {
      return InvalidArgument("'" + url + "' is not an http:// or https:// URL");
    }
    for (char c : url) {
      if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f) {
        return InvalidArgument("a remote_url has a control character");
      }
    }
  }
  return Status::Ok();
}

Status CheckHttpListen(std::string_view v) {
  if (v.empty()) return Status::Ok();
  return ParseHttpListen(v).status();
}

ConfigSchema<Config> MakeSchema() {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  ConfigSchema<Config> s;
  s.Path("socket", &Config::socket_path, "Unix socket clients connect to");
  s.String("socket_mode", &Config::socket_mode, "permissions of the socket file (octal, e.g. 0660)",
           CheckSocketMode);
  s.Path("state_dir", &Config::state_dir, "spool of accepted jobs and kept results");
  s.Path("model_dir", &Config::model_dir,
         "MinerU 2.0 model folder, or a model's name in models_dir; empty for the text-layer backend");
  s.String("backend", &Config::backend, "auto, text-layer, model or remote", CheckBackend);
  s.Path("models_dir", &Config::models_dir, "where named models live (mineructl model pull writes there)");
  s.String("log_level", &Config::log_level, "debug, info, warning or error", CheckLogLevel);
  s.Bytes("vram_budget", &Config::vram_budget_bytes, "most GPU memory minerud may hold (0: all free)");
  s.Bytes("pinned_budget", &Config::pinned_budget_bytes,
          "pinned host memory arena (0: the weights + the KV pool if swapping)");
  s.Millis("keep_alive", &Config::keep_alive_ms, "idle time before weights leave the GPU");
  s.Int("kv_page_tokens", &Config::kv_page_tokens, 1, 1024, "tokens per KV cache page");
  s.Int("prefill_chunk", &Config::prefill_chunk_tokens, 1, 1 << 20, "prompt tokens per prefill chunk");
  s.Int("max_batch", &Config::max_batch, 1, 1024, "most pages in the model at once");
  s.Int("max_new_tokens", &Config::max_new_tokens, 0, 1 << 20,
        "most tokens the model writes per page (0: the checkpoint's limit)");
  s.Int("kv_cache_tokens", &Config::kv_cache_tokens, 0, 1 << 24,
        "KV cache size in tokens, all pages together (0: from the budget)");
  s.Int("step_tokens", &Config::step_tokens, 0, 1 << 20,
        "rows of one model step: every decoding page's token plus one prefill chunk (0: prefill_chunk + "
        "max_batch)");
  s.Int("vision_batch_tokens", &Config::vision_batch_tokens, 1, 1 << 24,
        "image tokens encoded together in one vision burst (at least one page)");
  s.Int("max_pages_per_user", &Config::max_pages_per_user, 0, 1024,
        "one user's pages in the model at once (0: max_batch)");
  s.String("compute_dtype", &Config::compute_dtype, "auto (the checkpoint's dtype), bf16 or f32",
           OneOf({"auto", "bf16", "f32"}));
  s.Int("compute_threads", &Config::compute_threads, 0, 4096, "the model's compute threads (0: every CPU)");
  s.String("preemption", &Config::preemption,
           "what a page preempted for KV space does: swap (its KV to host memory) or recompute",
           OneOf({"swap", "recompute"}));
  s.String("batching", &Config::batching,
           "continuous (pages join and leave every step) or static (a batch ends together)",
           OneOf({"continuous", "static"}));
  s.String("remote_url", &Config::remote_urls,
           "backend = remote: OpenAI-compatible servers (vLLM, SGLang), space-separated", CheckRemoteUrls);
  s.Path("remote_api_key_file", &Config::remote_api_key_file, "file with the bearer token for remote_url");
  s.Int("remote_concurrency", &Config::remote_concurrency, 1, 1024, "requests in flight per remote server");
  s.Millis("remote_timeout", &Config::remote_timeout_ms, "most time one page's remote request may take");
  s.String("http_listen", &Config::http_listen,
           "HOST:PORT (or PORT, on 127.0.0.1) of the OpenAI-compatible listener; empty: none",
           CheckHttpListen);
  s.Path("http_token_file", &Config::http_token_file,
         "file with the bearer token HTTP clients must send (required off loopback)");
  s.Int("http_max_connections", &Config::http_max_connections, 1, 65536, "HTTP connections at once");
  s.Bytes("http_max_body", &Config::http_max_body_bytes, "largest HTTP request body");
  s.Millis("http_timeout", &Config::http_timeout_ms,
           "most time to receive one HTTP request, or to send an answer");
  s.Int("workers", &Config::workers, 0, 1024, "parsing threads (0: one per core)");
  s.Int("render_dpi", &Config::render_dpi, 36, 600, "page render resolution for the model");
  s.Bool("ocr", &Config::ocr, "read pages without a usable text layer with Tesseract (text-layer backend)");
  s.String("ocr_languages", &Config::ocr_languages, "Tesseract languages for OCR, joined by '+'",
           CheckOcrLanguages);
  s.Millis("ocr_page_time_limit", &Config::ocr_page_time_limit_ms, "time limit of OCR for one page");
  s.Int("max_jobs_queued", &Config::max_jobs_queued, 1, kMax, "jobs waiting or running, all users");
  s.Int("max_jobs_per_user", &Config::max_jobs_per_user, 1, kMax, "jobs waiting or running per user");
  s.Bytes("max_document_size", &Config::max_document_bytes, "largest document accepted");
  s.Bytes("max_bytes_per_user", &Config::max_bytes_per_user, "document bytes queued per user");
  s.Int("max_pages", &Config::max_pages_per_document, 1, kMax, "most pages parsed per document");
  s.Int("max_seconds", &Config::max_seconds_per_document, 1, kMax, "time limit per document, seconds");
  s.Bytes("mupdf_memory", &Config::mupdf_memory_bytes, "MuPDF memory cap per document");
  s.Int("max_attempts", &Config::max_attempts, 1, 1000,
        "times a job may be cut short by minerud stopping before it is failed");
  s.Path("document_worker", &Config::document_worker,
         "the sandboxed document worker binary (empty: minerud-worker next to minerud)");
  s.Bytes("worker_memory", &Config::worker_memory_bytes,
          "address-space limit of a document worker (0: mupdf_memory + 1 GiB)");
  s.Millis("drain_timeout", &Config::drain_timeout_ms, "time to finish running jobs on SIGTERM");
  s.Millis("result_retention", &Config::result_retention_ms, "how long unfetched results are kept");
  s.String("admin_group", &Config::admin_group, "group whose members see every user's jobs");
  return s;
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && v[0] == '/') ? std::string(v) : fallback;
}

}  // namespace

const ConfigSchema<Config>& ConfigSchemaFor() {
  static const ConfigSchema<Config> schema = MakeSchema();
  return schema;
}

std::string DefaultSocketPath() {
  if (::geteuid() == 0) return kSystemSocketPath;
  std::string runtime = EnvOr("XDG_RUNTIME_DIR", "/run/user/" + std::to_string(::geteuid()));
  return runtime + "/minerud.sock";
}

std::string DefaultStateDir() {
  if (::geteuid() == 0) return "/var/lib/minerud";
  std::string home = EnvOr("HOME", "/tmp");
  return EnvOr("XDG_STATE_HOME", home + "/.local/state") + "/minerud";
}

std::string DefaultModelsDir() {
  if (::geteuid() == 0) return "/var/lib/minerud/models";
  std::string home = EnvOr("HOME", "/tmp");
  return EnvOr("XDG_DATA_HOME", home + "/.local/share") + "/minerud/models";
}

std::vector<std::string> SplitRemoteUrls(std::string_view urls) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < urls.size()) {
    while (i < urls.size() && (urls[i] == ' ' || urls[i] == ',' || urls[i] == '\t')) ++i;
    size_t end = i;
    while (end < urls.size() && urls[end] != ' ' && urls[end] != ',' && urls[end] != '\t') ++end;
    if (end > i) out.emplace_back(urls.substr(i, end - i));
    i = end;
  }
  return out;
}

Result<HttpListenAddress> ParseHttpListen(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("http_listen '" + std::string(text) + "': " + why +
                           " (HOST:PORT with an IP address, [::1]:PORT, or a port)");
  };
  HttpListenAddress out;
  std::string_view port = text;
  const size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    out.host = host == "localhost" ? "127.0.0.1" : std::string(host);
  } else {
    out.host = "127.0.0.1";
  }
  if (port.empty() || port.size() > 5) return bad("no port");
  uint32_t n = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return bad("the port is not a number");
    n = n * 10 + static_cast<uint32_t>(c - '0');
  }
  if (n > 65535) return bad("the port is past 65535");
  out.port = static_cast<uint16_t>(n);
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, out.host.c_str(), &v4) == 1) {
    out.loopback = (ntohl(v4.s_addr) >> 24) == 127;
  } else if (::inet_pton(AF_INET6, out.host.c_str(), &v6) == 1) {
    out.loopback = IN6_IS_ADDR_LOOPBACK(&v6);
  } else {
    return bad("'" + out.host + "' is not an IP address");
  }
  return out;
}

bool IsModelName(std::string_view name) {
  if (name.empty() || name[0] == '.') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) return false;
  }
  return true;
}

Status CheckOcrLanguages(std::string_view languages) {
  bool ok = !languages.empty() && languages.front() != '+' && languages.back() != '+' &&
            languages.find("++") == std::string_view::npos;
  for (char c : languages) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+');
  }
  if (!ok) {
    return InvalidArgument("'" + std::string(languages) +
                           "' is not a list of Tesseract languages joined by '+' (e.g. eng+chi_sim)");
  }
  return Status::Ok();
}

Result<std::string> ResolveModelDir(const std::string& model_dir, const std::string& models_dir) {
  if (model_dir.empty() || model_dir.find('/') != std::string::npos) return model_dir;
  if (!IsModelName(model_dir)) {
    return InvalidArgument(
        "model_dir '" + model_dir +
        "' is neither a path (with a '/') nor a model name (letters, digits, '.', '-', '_')");
  }
  if (models_dir.empty())
    return InvalidArgument("model_dir '" + model_dir + "' is a name, but models_dir is empty");
  return models_dir + "/" + model_dir;
}

}  // namespace mineru
