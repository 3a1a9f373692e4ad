// model_daemon_bench: the model path of the daemon end to end against the engine alone, on the same page
// image and settings, in one run (issue target: the daemon's page at ≥ 0.9× mineru-infer's speed).
//   1. The page: page 1 of --pdf rendered at --dpi the way minerud renders it (document/pdf_document.h),
//      saved as a PNG, and cut into a one-page PDF (mutool merge) for the daemon.
//   2. mineru-infer --model DIR --prompt <MinerU's prompt> --image page.png --generate N --dtype D
//      --threads T: a whole process, loading included.
//   3. minerud --model DIR with render_dpi, max_new_tokens, compute_dtype and compute_threads set alike;
//      `mineructl submit` of the one-page PDF twice: the first brings the weights in (cold), the second
//      finds them resident (warm), as every submit after the first does.
// Prints the wall time of each, the ratios, and whether the daemon's NAME_model_output.txt holds the
// text mineru-infer wrote.
//
// usage: model_daemon_bench --model DIR [--pdf FILE] [--dpi 36] [--tokens 32] [--dtype bf16|f32]
//                           [--threads N]
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/cpu_count.h"
#include "document/pdf_document.h"
#include "document/rgb_image.h"
#include "engine/prompt_template.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace mineru;

struct Options {
  std::string model;
  std::string pdf = MINERU_SOURCE_DIR "/examples/sample.pdf";
  int dpi = 36;  // minerud's lowest render_dpi
  int tokens = 32;
  std::string dtype = "bf16";
  int threads = 0;
};

struct Timed {
  int exit_code = -1;
  double seconds = 0;
};

// Starts argv with stdout and stderr in `out_path`; MINERU_SOCKET added to the environment when set.
// Returns the pid, or -1.
pid_t Start(const std::vector<std::string>& argv, const std::string& out_path,
            const std::string& socket = "") {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_store;
  for (char** e = environ; *e; ++e) env_store.emplace_back(*e);
  if (!socket.empty()) env_store.push_back("MINERU_SOCKET=" + socket);
  std::vector<char*> env;
  for (std::string& e : env_store) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), env.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

// Runs argv to completion (as Start) and times it.
Timed Run(const std::vector<std::string>& argv, const std::string& out_path, const std::string& socket = "") {
  Timed t;
  Stopwatch clock;
  const pid_t pid = Start(argv, out_path, socket);
  if (pid > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    t.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  t.seconds = clock.ElapsedSeconds();
  return t;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--model")
      o->model = v;
    else if (a == "--pdf")
      o->pdf = v;
    else if (a == "--dpi")
      o->dpi = std::atoi(v.c_str());
    else if (a == "--tokens")
      o->tokens = std::atoi(v.c_str());
    else if (a == "--dtype")
      o->dtype = v;
    else if (a == "--threads")
      o->threads = std::atoi(v.c_str());
    else
      return false;
  }
  return argc % 2 == 1 && !o->model.empty() && o->dpi > 0 && o->tokens > 0 &&
         (o->dtype == "bf16" || o->dtype == "f32");
}

// The page as minerud sees it: rendered by MuPDF at the daemon's dpi, as a lossless PNG.
Status WritePageImage(const Options& o, const fs::path& png) {
  const std::string bytes = ReadText(o.pdf);
  const std::span<const uint8_t> pdf(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  MINERU_ASSIGN_OR_RETURN(auto doc, document::PdfDocument::Open(pdf, document::DocumentLimits{}, nullptr));
  MINERU_ASSIGN_OR_RETURN(document::RgbImage page, doc->RenderPage(0, o.dpi));
  MINERU_ASSIGN_OR_RETURN(std::vector<uint8_t> encoded, document::EncodePng(page));
  std::ofstream out(png, std::ios::binary);
  out.write(reinterpret_cast<const char*>(encoded.data()), static_cast<std::streamsize>(encoded.size()));
  std::printf("page: %s page 1 at %d dpi, %dx%d pixels\n", o.pdf.c_str(), o.dpi, page.width, page.height);
  return out ? Status::Ok() : InvalidArgument("cannot write " + png.string());
}

bool WaitForDaemon(pid_t daemon, const std::string& socket, const fs::path& log) {
  for (int i = 0; i < 600; ++i) {
    if (::waitpid(daemon, nullptr, WNOHANG) == daemon) return false;
    if (Run({MINERUCTL_PATH, "daemon-status"}, log.string() + ".status", socket).exit_code == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

int Bench(const Options& o) {
  const fs::path dir = fs::temp_directory_path() / ("model_daemon_bench." + std::to_string(::getpid()));
  fs::create_directories(dir / "state");
  const std::string threads = std::to_string(o.threads > 0 ? o.threads : UsableCpus());
  if (Status s = WritePageImage(o, dir / "page.png"); !s.ok()) {
    std::fprintf(stderr, "model_daemon_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  if (Run({"/usr/bin/mutool", "merge", "-o", (dir / "page.pdf").string(), o.pdf, "1"}, dir / "mutool.log")
          .exit_code != 0) {
    std::fprintf(stderr, "model_daemon_bench: mutool merge failed (%s)\n", (dir / "mutool.log").c_str());
    return 1;
  }
  // The engine alone.
  const Timed infer = Run({MINERU_INFER_PATH, "--model", o.model, "--prompt", engine::MineruPrompt(),
                           "--image", (dir / "page.png").string(), "--generate", std::to_string(o.tokens),
                           "--dtype", o.dtype, "--threads", threads},
                          dir / "infer.json");
  if (infer.exit_code != 0) {
    std::fprintf(stderr, "model_daemon_bench: mineru-infer failed: %s\n",
                 ReadText(dir / "infer.json").c_str());
    return 1;
  }
  const nlohmann::json ij = nlohmann::json::parse(ReadText(dir / "infer.json"), nullptr, false);
  const std::string infer_text =
      ij.is_object() && ij.contains("text") && ij["text"].is_string() ? ij["text"].get<std::string>() : "";

  // The daemon.
  const std::string socket = (dir / "s.sock").string();
  const pid_t daemon = Start(
      {MINERUD_PATH, "--socket", socket, "--state-dir", (dir / "state").string(), "--model", o.model, "--set",
       "render_dpi=" + std::to_string(o.dpi), "--set", "max_new_tokens=" + std::to_string(o.tokens), "--set",
       "compute_dtype=" + o.dtype, "--set", "compute_threads=" + threads},
      (dir / "minerud.log").string());
  if (daemon < 0 || !WaitForDaemon(daemon, socket, dir / "ctl")) {
    std::fprintf(stderr, "model_daemon_bench: minerud did not start (%s)\n", (dir / "minerud.log").c_str());
    if (daemon > 0) ::kill(daemon, SIGTERM);
    return 1;
  }
  Timed submits[2];
  for (int i = 0; i < 2; ++i) {
    submits[i] = Run({MINERUCTL_PATH, "submit", (dir / "page.pdf").string(), "-o",
                      (dir / ("out" + std::to_string(i))).string()},
                     (dir / ("submit" + std::to_string(i) + ".log")).string(), socket);
  }
  ::kill(daemon, SIGTERM);
  ::waitpid(daemon, nullptr, 0);
  for (int i = 0; i < 2; ++i) {
    if (submits[i].exit_code != 0) {
      std::fprintf(stderr, "model_daemon_bench: mineructl submit failed: %s\n",
                   ReadText(dir / ("submit" + std::to_string(i) + ".log")).c_str());
      return 1;
    }
  }
  const std::string daemon_text = ReadText(dir / "out1" / "page_model_output.txt");
  const bool same = !infer_text.empty() && daemon_text.find(infer_text) != std::string::npos;
  std::printf("%-34s %8s %8s\n", "", "seconds", "speed");
  std::printf("%-34s %8.1f %7.2fx\n", "mineru-infer (load + page)", infer.seconds, 1.0);
  std::printf("%-34s %8.1f %7.2fx\n", "minerud, first submit (cold)", submits[0].seconds,
              infer.seconds / submits[0].seconds);
  std::printf("%-34s %8.1f %7.2fx\n", "minerud, next submit (warm)", submits[1].seconds,
              infer.seconds / submits[1].seconds);
  std::printf("the daemon's model output holds mineru-infer's text: %s\n", same ? "yes" : "NO");
  fs::remove_all(dir);
  return same ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fputs(
        "usage: model_daemon_bench --model DIR [--pdf FILE] [--dpi 36] [--tokens 32] [--dtype bf16|f32]\n"
        "                          [--threads N]\n",
        stderr);
    return 64;
  }
  return Bench(o);
}
