// mineructl's command line: the command, its arguments and the global options, plus the exit codes
// (sysexits-style, as users of lp and docker expect).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace mineru::ctl {

enum ExitCode : int {
  kExitOk = 0,
  kExitJobFailed = 1,
  kExitUsage = 64,
  kExitBadInput = 65,
  kExitUnavailable = 69,
  kExitWriteError = 74,  // an output file could not be written (EX_IOERR)
  kExitBusy = 75,
  kExitPermission = 77,
  kExitTimeout = 124,  // wait --timeout passed (the jobs go on), as timeout(1)
  kExitInterrupted = 130,
};

// The exit code for an error status (kUnavailable -> 69, kBusy -> 75, ...).
int ExitCodeFor(StatusCode code);

enum class Command {
  kHelp,
  kVersion,
  kSubmit,
  kStatus,
  kList,
  kWait,
  kCancel,
  kFetch,
  kStats,
  kDaemonStatus,
  kInfo,
  kBudget,
  kModelPull,  // `model pull [REPO]`: no daemon involved
  kModelList,
};

// False for the commands that work without minerud (model pull, model list).
bool TalksToDaemon(Command command);

struct CtlOptions {
  Command command = Command::kHelp;
  std::string socket_path;  // --socket; empty: found as libmineru-client finds it (socket_discovery.h)
  bool json = false;        // --json: JSON lines on stdout, errors as {"error": ...}
  bool quiet = false;       // -q: no progress on stderr
  // submit
  std::vector<std::string> files;  // "-" = stdin
  std::string output_dir;          // -o DIR
  bool detach = false;
  std::string name;  // --name: output base name (default: the file's name without .pdf; "stdin" for -)
  std::string backend = "auto";
  bool stream = false;      // --stream: each page on stdout as it is parsed
  uint32_t first_page = 0;  // --pages, 0-based inclusive
  uint32_t last_page = UINT32_MAX;
  // status/wait/cancel/fetch
  std::vector<uint64_t> job_ids;
  bool all = false;         // list --all (every user's; admins), cancel --all (all of mine)
  int64_t timeout_ms = -1;  // wait --timeout
  // budget
  uint64_t vram_budget_bytes = 0;
  // model pull / model list (--name is the model's folder name there)
  std::string repo;        // OWNER/NAME; empty: the default (hub/tree_listing.h)
  std::string endpoint;    // --endpoint; empty: $HF_ENDPOINT, else https://huggingface.co
  std::string revision;    // --revision; empty: main
  std::string models_dir;  // --models-dir; empty: DefaultModelsDir()
  bool replace = false;    // --replace: fetch again over an existing model of that name
  int retries = 3;         // --retries: attempts after an interrupted transfer, each resumed
};

// Parses argv: options anywhere, `--opt value` or `--opt=value`, and after `--` only operands (a file
// named "-x"). Usage errors are kInvalidArgument with a message (exit 64).
Result<CtlOptions> ParseCtlOptions(int argc, const char* const* argv);

std::string CtlUsage();

// "--pages" values, 1-based and inclusive as people count pages: "3" (page 3), "3-7", "3-" (to the end).
// Returns the 0-based range.
Result<std::pair<uint32_t, uint32_t>> ParsePageRange(std::string_view text);

}  // namespace mineru::ctl
