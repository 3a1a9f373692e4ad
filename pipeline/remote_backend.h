// RemoteBackend: MinerU 2.0 served by other machines (backend = remote). Everything but the model stays
// local: a job's worker renders each page at render_dpi, sends it as PNG to one of the remote_url
// servers (OpenAI-compatible chat completions: vLLM, SGLang; remote_client.h spreads
// pages and handles failures), and turns the streamed answer into blocks and MinerU's output files
// exactly as the model backend does. A worker keeps up to one window of its pages in flight, so one
// job fills the servers and pages of several jobs share them.
// A page that no server could answer is a failed page of the job (its error in the outputs); a job
// all of whose pages failed fails with the first page's error.
#pragma once

#include <memory>

#include "common/config.h"
#include "pipeline/backend.h"

namespace mineru::pipeline {

class RemoteClient;

class RemoteBackend final : public Backend {
 public:
  // Reads the API key file (its contents are never logged) and starts the client; the servers are
  // asked for their model in the background, so a server that is down at start is no error.
  static Result<std::unique_ptr<RemoteBackend>> Open(const Config& config);
  ~RemoteBackend() override;

  std::string_view name() const override { return "vlm"; }
  Result<BackendOutput> Parse(const BackendInput& input, const PageProgressFn& progress,
                              const CancelFlag& cancel) override;
  BackendStats Stats() const override;
  void Cancel(uint64_t job_id) override;
  int64_t JobSlots() const override;
  std::string StatusLine() const override;

  // One line for the log: the servers and their limits (never the key).
  std::string Describe() const;

 private:
  RemoteBackend(const Config& config, std::unique_ptr<RemoteClient> client);

  const Config config_;
  const int64_t window_pages_;
  std::unique_ptr<RemoteClient> client_;
};

// Reads a bearer token from `path`: one line, surrounding whitespace dropped; empty or with control
// characters inside is an error (the error never quotes the contents; it names `key`, the config key).
Result<std::string> ReadApiKeyFile(const std::string& path, std::string_view key = "remote_api_key_file");

}  // namespace mineru::pipeline
