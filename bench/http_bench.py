#!/usr/bin/env python3
"""minerud's OpenAI-compatible listener, side by side in one run.

1. Pages/s of a minerud with the remote backend (A) sending every page to a minerud serving the model
   over http_listen (B), against B parsing the same PDF itself: the overhead of the remote path.
2. Requests/s of GET /health on a kept-alive HTTP connection, against the Unix-socket ping of
   libmineru-client (through the Python binding), both from this one Python process.

   bench/http_bench.py BUILD_DIR MODEL_DIR PDF [--rounds N (5)] [--max-new-tokens N] [--concurrency N]
                       [--split-cores]

MODEL_DIR is a MinerU 2.0 folder (make_tiny_vlm_model writes the golden tiny one). Both daemons run
on this machine, so on a CPU they share its cores: the ratio is what the remote path costs on top of
the model, not a network measurement. A's remote_concurrency is --concurrency (default 16, B's
max_batch), so A keeps as many pages in B's model at once as B parsing the PDF itself does. The CPU
seconds each daemon used in the best round of each path are printed too, and every round's seconds
(the machine's noise: the ratio of the best rounds and of the medians).

--split-cores gives B the upper half of this process's CPUs and A (with mineructl and this script) the
lower half, in both paths, B's compute_threads set to its share: B alone and A -> B then run B on the
same cores and A's render and PNG encode on cores of its own, as when the server is another machine.
"""
import argparse
import http.client
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def start_daemon(build, work, name, args, cpus=None):
    sock = os.path.join(work, name + ".sock")
    log = open(os.path.join(work, name + ".log"), "w+")
    proc = subprocess.Popen([os.path.join(build, "daemon/minerud"), "--socket", sock, "--state-dir",
                             os.path.join(work, name + "-state"), "--workers", "2"] + args,
                            stdout=log, stderr=subprocess.STDOUT,
                            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    ctl = os.path.join(build, "client/mineructl")
    for _ in range(600):
        if subprocess.run([ctl, "--socket", sock, "info"], capture_output=True).returncode == 0:
            return proc, sock, log
        time.sleep(0.1)
    log.seek(0)
    sys.exit(name + " did not start:\n" + log.read())


def cpu_seconds(pid):
    """User + system CPU seconds of a process and its reaped children (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def parse_seconds(build, sock, pdf, out):
    shutil.rmtree(out, ignore_errors=True)
    t = time.monotonic()
    r = subprocess.run([os.path.join(build, "client/mineructl"), "--socket", sock, "submit", pdf, "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("submit failed: " + r.stderr)
    return time.monotonic() - t


def page_count(out):
    text = open(next(os.path.join(out, f) for f in os.listdir(out) if f.endswith("_model_output.txt"))).read()
    return text.count("\n" + "-" * 50 + "\n") + 1, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("model")
    ap.add_argument("pdf")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-new-tokens", type=int, default=40)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--split-cores", action="store_true")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="http-bench-")
    tokens = "max_new_tokens=%d" % a.max_new_tokens
    a_cpus = b_cpus = None
    b_args = ["--model", a.model, "--set", tokens, "--set", "http_listen=127.0.0.1:0"]
    if a.split_cores:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            sys.exit("--split-cores needs two CPUs or more")
        a_cpus, b_cpus = set(cpus[:len(cpus) // 2]), set(cpus[len(cpus) // 2:])
        os.sched_setaffinity(0, a_cpus)
        b_args += ["--set", "compute_threads=%d" % len(b_cpus)]
        print("A and this script on CPUs %s, B on CPUs %s" % (sorted(a_cpus), sorted(b_cpus)))
    b, b_sock, b_log = start_daemon(a.build, work, "b", b_args, b_cpus)
    b_log.seek(0)
    port = int(re.search(r"HTTP listener on 127\.0\.0\.1:(\d+)", b_log.read()).group(1))
    a_proc, a_sock, _ = start_daemon(a.build, work, "a", ["--set", "backend=remote", "--set",
                                                          "remote_url=http://127.0.0.1:%d" % port, "--set", tokens,
                                                          "--set", "remote_concurrency=%d" % a.concurrency], a_cpus)
    try:
        # 1. Pages/s, rounds interleaved so both see the same machine.
        local, remote = [], []  # (seconds, CPU seconds of A, of B)

        def timed(sock, out):
            before = (cpu_seconds(a_proc.pid), cpu_seconds(b.pid))
            t = parse_seconds(a.build, sock, a.pdf, os.path.join(work, out))
            return t, cpu_seconds(a_proc.pid) - before[0], cpu_seconds(b.pid) - before[1]

        parse_seconds(a.build, b_sock, a.pdf, os.path.join(work, "warm"))
        for _ in range(a.rounds):
            local.append(timed(b_sock, "local"))
            remote.append(timed(a_sock, "remote"))
        pages, want = page_count(os.path.join(work, "local"))
        _, got = page_count(os.path.join(work, "remote"))
        best_l, best_r = min(local), min(remote)
        med_l, med_r = statistics.median(x[0] for x in local), statistics.median(x[0] for x in remote)
        print("pages/s (%d pages, best of %d): B alone %.2f, A -> B %.2f, ratio %.2fx (of the medians %.2fx); "
              "model output %s" % (pages, a.rounds, pages / best_l[0], pages / best_r[0], best_l[0] / best_r[0],
                                   med_l / med_r, "identical" if got == want else "DIFFERENT"))
        print("seconds per round: B alone %s; A -> B %s" % (" ".join("%.2f" % x[0] for x in local),
                                                            " ".join("%.2f" % x[0] for x in remote)))
        print("CPU seconds (those rounds): B alone %.1f; A -> B: A %.1f, B %.1f" %
              (best_l[2], best_r[1], best_r[2]))

        # 2. Trivial requests.
        conn = http.client.HTTPConnection("127.0.0.1", port)
        for _ in range(100):
            conn.request("GET", "/health")
            conn.getresponse().read()
        t = time.monotonic()
        for _ in range(a.requests):
            conn.request("GET", "/health")
            r = conn.getresponse()
            r.read()
            assert r.status == 200
        http_rps = a.requests / (time.monotonic() - t)
        os.environ.setdefault("MINERU_CLIENT_LIBRARY", os.path.join(a.build, "client/libmineru-client.so"))
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../python"))
        from mineru_client import Client
        client = Client(b_sock)
        for _ in range(100):
            client.ping()
        t = time.monotonic()
        for _ in range(a.requests):
            client.ping()
        ping_rps = a.requests / (time.monotonic() - t)
        print("trivial requests/s (%d, one connection): GET /health %.0f, Unix-socket ping %.0f, ratio %.2fx" %
              (a.requests, http_rps, ping_rps, http_rps / ping_rps))
    finally:
        for p in (a_proc, b):
            p.terminate()
            p.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
