#include "client/ctl_options.h"

#include <charconv>
#include <cstring>
#include <optional>
#include <utility>

#include "common/config_loader.h"

namespace mineru::ctl {

int ExitCodeFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kResourceExhausted:
    case StatusCode::kOutOfRange:
      return kExitBadInput;
    case StatusCode::kUnavailable:
      return kExitUnavailable;
    case StatusCode::kBusy:
      return kExitBusy;
    case StatusCode::kPermissionDenied:
      return kExitPermission;
    case StatusCode::kCancelled:
      return kExitInterrupted;
    case StatusCode::kDeadlineExceeded:
      return kExitTimeout;
    default:
      return kExitJobFailed;
  }
}

bool TalksToDaemon(Command command) {
  return command != Command::kModelPull && command != Command::kModelList;
}

std::string CtlUsage() {
  return "Usage: mineructl [GLOBAL OPTIONS] COMMAND [ARGS]\n"
         "\n"
         "Submit documents to minerud and follow their jobs.\n"
         "\n"
         "Commands:\n"
         "  submit FILE...|-      parse documents; waits and writes NAME.md, NAME_content_list.json,\n"
         "                        NAME_middle.json, NAME_layout.pdf, NAME_model_output.txt (with a\n"
         "                        model) and images/ under -o DIR (default ./NAME.mineru/); progress\n"
         "                        on stderr\n"
         "                        (the job ids on stderr as each is accepted)\n"
         "      -o, --output DIR  output folder (with several files, all go into DIR)\n"
         "      -d, --detach      print the job ids and return at once; fetch the results later\n"
         "      --name NAME       output base name (default: the file name without .pdf; 'stdin' for -)\n"
         "      --backend B       auto, text or vlm: the backend the job needs; minerud runs one and\n"
         "                        refuses a job naming the other (default auto: whichever it runs)\n"
         "      --pages N-M       parse only pages N to M (1-based; N, N-M or N- for N to the end)\n"
         "      --stream          also print each page's Markdown on stdout as soon as it is parsed\n"
         "                        (with --json: {\"event\":\"page\",...} lines)\n"
         "  status ID...          show jobs\n"
         "  list, ps [-a|--all]   list your jobs (--all: every user's, for root and the admin group)\n"
         "  wait ID... [--timeout DURATION]\n"
         "                        wait until the jobs end; exit 1 if one failed, 124 on timeout\n"
         "  cancel ID...|-a|--all cancel jobs (--all: every job of yours)\n"
         "  fetch ID -o DIR       write a finished job's results under DIR\n"
         "  stats                 daemon counters: queue, jobs, pages, memory per tier\n"
         "  daemon-status         is minerud up; its version, socket, backend, model and budgets, and\n"
         "                        your uid as it sees it\n"
         "  info                  what minerud runs: version, pid, backend, model folder, budgets, limits\n"
         "  budget SIZE           set the model's VRAM budget (e.g. 6G) until minerud's next reload or\n"
         "                        restart (root and the admin group)\n"
         "  model pull [REPO]     download a model (default opendatalab/MinerU2.0-2505-0.9B) into the\n"
         "                        models folder, checked against the hub's sha256 list; an interrupted\n"
         "                        pull resumes when run again; then `model_dir = NAME`\n"
         "      --name NAME       the model's folder name (default: REPO's name)\n"
         "      --models-dir DIR  default models_dir in /etc/minerud.conf, else /var/lib/minerud/models\n"
         "                        for root (the system daemon), $XDG_DATA_HOME/minerud/models\n"
         "                        (~/.local/share/...) for a user\n"
         "      --endpoint URL    the hub (default $HF_ENDPOINT, else https://huggingface.co; mirrors)\n"
         "      --revision REV    branch, tag or commit (default main)\n"
         "      --replace         fetch again over an existing model of that name (swapped in at once)\n"
         "      --retries N       resumed attempts after a broken transfer (default 3)\n"
         "  model list            the models in the models folder (--models-dir DIR)\n"
         "\n"
         "Global options:\n"
         "  --socket PATH         minerud's socket (default $MINERU_SOCKET, else `socket` in\n"
         "                        ~/.config/minerud/client.conf, else $XDG_RUNTIME_DIR/minerud.sock if\n"
         "                        your own minerud answers, else /run/minerud/minerud.sock)\n"
         "  --json                JSON output: one object per line; errors as {\"error\": ...}\n"
         "  -q, --quiet           no progress on stderr\n"
         "  -h, --help            print this help and exit\n"
         "  --version             print the version and exit\n"
         "An option takes its value as the next argument or after '=' (--pages=3-7); after -- every\n"
         "argument is a FILE or an ID.\n"
         "\n"
         "Exit status: 0 ok, 1 a job failed, 64 usage error, 65 bad input (unreadable file, no such job;\n"
         "model pull: no such repository, a checksum that does not match), 69 minerud (model pull: the\n"
         "hub) unreachable, 74 an output file could not be written, 75 busy (queue or state directory\n"
         "full: retry later), 77 permission denied, 124 wait --timeout passed (jobs continue), 130\n"
         "interrupted (jobs continue in minerud; model pull resumes when run again).\n";
}

Result<std::pair<uint32_t, uint32_t>> ParsePageRange(std::string_view text) {
  const auto bad = [&] {
    return InvalidArgument("--pages '" + std::string(text) + "': expected N, N-M or N- (pages count from 1)");
  };
  const auto number = [](std::string_view digits) -> std::optional<uint32_t> {
    uint32_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size() || v == 0 || v == UINT32_MAX) {
      return std::nullopt;
    }
    return v;
  };
  const size_t dash = text.find('-');
  const std::optional<uint32_t> first = number(text.substr(0, dash));
  if (!first) return bad();
  if (dash == std::string_view::npos) return std::pair{*first - 1, *first - 1};
  if (dash + 1 == text.size()) return std::pair{*first - 1, UINT32_MAX};
  const std::optional<uint32_t> last = number(text.substr(dash + 1));
  if (!last) return bad();
  if (*last < *first) return InvalidArgument("--pages '" + std::string(text) + "': the range is empty");
  return std::pair{*first - 1, *last - 1};
}

Result<CtlOptions> ParseCtlOptions(int argc, const char* const* argv) {
  CtlOptions o;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  size_t i = 0;
  bool have_command = false;
  std::vector<std::string> positional;
  std::optional<std::string> inline_value;  // the VALUE of --opt=VALUE
  auto need_value = [&](const std::string& flag) -> Result<std::string> {
    if (inline_value) return *std::exchange(inline_value, std::nullopt);
    if (i + 1 >= args.size()) return InvalidArgument(flag + " needs a value");
    return args[++i];
  };
  bool operands_only = false;  // after "--"
  for (; i < args.size(); ++i) {
    std::string a = args[i];
    if (!operands_only && a == "--") {
      operands_only = true;
      continue;
    }
    if (operands_only) {
      if (!have_command) return InvalidArgument("no command given before '--' (see mineructl --help)");
      positional.push_back(a);
      continue;
    }
    inline_value.reset();
    if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = a.substr(eq + 1);
      a.resize(eq);
    }
    const auto no_value = [&]() -> Status {
      return inline_value ? InvalidArgument(a + " takes no value") : Status::Ok();
    };
    if (a == "--help" || a == "-h") {
      o.command = Command::kHelp;
      return o;
    }
    if (a == "--version") {
      o.command = Command::kVersion;
      return o;
    }
    if (a == "--json") {
      MINERU_RETURN_IF_ERROR(no_value());
      o.json = true;
    } else if (a == "-q" || a == "--quiet") {
      MINERU_RETURN_IF_ERROR(no_value());
      o.quiet = true;
    } else if (a == "--socket") {
      MINERU_ASSIGN_OR_RETURN(o.socket_path, need_value(a));
    } else if (a == "-o" || a == "--output") {
      MINERU_ASSIGN_OR_RETURN(o.output_dir, need_value(a));
    } else if (a == "--name") {
      MINERU_ASSIGN_OR_RETURN(o.name, need_value(a));
    } else if (a == "--backend") {
      MINERU_ASSIGN_OR_RETURN(o.backend, need_value(a));
      if (o.backend != "auto" && o.backend != "text" && o.backend != "vlm") {
        return InvalidArgument("--backend must be auto, text or vlm");
      }
    } else if (a == "--pages") {
      MINERU_ASSIGN_OR_RETURN(std::string v, need_value(a));
      MINERU_ASSIGN_OR_RETURN(auto range, ParsePageRange(v));
      o.first_page = range.first;
      o.last_page = range.second;
    } else if (a == "--timeout") {
      MINERU_ASSIGN_OR_RETURN(std::string v, need_value(a));
      MINERU_ASSIGN_OR_RETURN(o.timeout_ms, ParseDurationMillis(v));
    } else if (a == "--endpoint") {
      MINERU_ASSIGN_OR_RETURN(o.endpoint, need_value(a));
    } else if (a == "--revision") {
      MINERU_ASSIGN_OR_RETURN(o.revision, need_value(a));
    } else if (a == "--models-dir") {
      MINERU_ASSIGN_OR_RETURN(o.models_dir, need_value(a));
    } else if (a == "--replace") {
      MINERU_RETURN_IF_ERROR(no_value());
      o.replace = true;
    } else if (a == "--retries") {
      MINERU_ASSIGN_OR_RETURN(std::string v, need_value(a));
      MINERU_ASSIGN_OR_RETURN(int64_t n, ParseInt(v, 0, 100));
      o.retries = static_cast<int>(n);
    } else if (a == "--stream") {
      MINERU_RETURN_IF_ERROR(no_value());
      o.stream = true;
    } else if (a == "--detach" || a == "-d") {
      MINERU_RETURN_IF_ERROR(no_value());
      o.detach = true;
    } else if (a == "--all" || a == "-a") {
      MINERU_RETURN_IF_ERROR(no_value());
      o.all = true;
    } else if (a == "-" || a.empty() || a[0] != '-') {
      if (!have_command) {
        static const std::pair<const char*, Command> kCommands[] = {
            {"submit", Command::kSubmit},
            {"status", Command::kStatus},
            {"list", Command::kList},
            {"ps", Command::kList},
            {"wait", Command::kWait},
            {"cancel", Command::kCancel},
            {"fetch", Command::kFetch},
            {"stats", Command::kStats},
            {"daemon-status", Command::kDaemonStatus},
            {"info", Command::kInfo},
            {"budget", Command::kBudget},
            {"model", Command::kModelPull},  // the sub-command follows
        };
        bool found = false;
        for (const auto& [name, cmd] : kCommands) {
          if (a == name) {
            o.command = cmd;
            found = true;
          }
        }
        if (!found) return InvalidArgument("unknown command '" + a + "' (see mineructl --help)");
        have_command = true;
      } else {
        positional.push_back(a);
      }
    } else {
      return InvalidArgument("unknown option '" + a + "' (see mineructl --help)");
    }
    if (inline_value) return InvalidArgument(a + " takes no value");
  }
  if (!have_command) return InvalidArgument("no command given (see mineructl --help)");
  auto parse_ids = [&]() -> Status {
    for (const std::string& p : positional) {
      uint64_t id = 0;
      auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), id);
      if (ec != std::errc() || end != p.data() + p.size() || id == 0) {
        return InvalidArgument("'" + p + "' is not a job id");
      }
      o.job_ids.push_back(id);
    }
    return Status::Ok();
  };
  switch (o.command) {
    case Command::kSubmit:
      if (positional.empty()) return InvalidArgument("submit needs at least one FILE (or - for stdin)");
      o.files = positional;
      if (!o.name.empty() && o.files.size() > 1) return InvalidArgument("--name works with a single FILE");
      if (o.stream && o.detach) return InvalidArgument("--stream needs to wait for the pages; drop --detach");
      break;
    case Command::kStatus:
    case Command::kWait:
      MINERU_RETURN_IF_ERROR(parse_ids());
      if (o.job_ids.empty()) return InvalidArgument("this command needs at least one job ID");
      break;
    case Command::kCancel:
      MINERU_RETURN_IF_ERROR(parse_ids());
      if (o.job_ids.empty() == !o.all) return InvalidArgument("cancel needs job IDs or --all (not both)");
      break;
    case Command::kFetch:
      MINERU_RETURN_IF_ERROR(parse_ids());
      if (o.job_ids.size() != 1) return InvalidArgument("fetch needs exactly one job ID");
      if (o.output_dir.empty()) return InvalidArgument("fetch needs -o DIR");
      break;
    case Command::kModelPull:
      if (positional.empty() || (positional[0] != "pull" && positional[0] != "list")) {
        return InvalidArgument("model needs a sub-command: pull [REPO] or list");
      }
      if (positional[0] == "list") {
        o.command = Command::kModelList;
        if (positional.size() > 1) return InvalidArgument("unexpected argument '" + positional[1] + "'");
      } else if (positional.size() > 2) {
        return InvalidArgument("model pull takes one REPO (OWNER/NAME)");
      } else if (positional.size() == 2) {
        o.repo = positional[1];
      }
      break;
    case Command::kBudget: {
      if (positional.size() != 1) return InvalidArgument("budget needs one SIZE, e.g. 6G");
      auto bytes = ParseByteSize(positional[0]);
      if (!bytes.ok() || *bytes == 0)
        return InvalidArgument("budget: '" + positional[0] + "' is not a size, e.g. 6G");
      o.vram_budget_bytes = *bytes;
      break;
    }
    case Command::kList:
    case Command::kStats:
    case Command::kDaemonStatus:
    case Command::kInfo:
      if (!positional.empty()) return InvalidArgument("unexpected argument '" + positional[0] + "'");
      break;
    default:
      break;
  }
  return o;
}

}  // namespace mineru::ctl
