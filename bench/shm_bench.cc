// shm_bench: the zero-copy transport measured side by side in one run.
//
// Throughput, per document size: (a) memcpy on this machine (the limit), (b) the memfd submit path
// end to end (create, fill, seal, pass the fd, map, read every byte in another process), (b2) the
// same with the bytes copied in by DocumentBuffer::CopyOf instead of filled in place, (c) the same
// bytes written through a Unix socket and read into a buffer in the other process ((c') the same into
// a newly allocated buffer per document).
// Latency: a 64-byte request/reply over our control channel vs a bare socket ping-pong, and one hop
// of a 64-byte record through the result ring (half a ping-pong over two rings), spinning and with
// eventfd wake-ups. Last column, for context: memcpy into freshly mapped memory (page allocation and
// zeroing included), which (b) pays and (a) does not.
//
// Usage: shm_bench [--quick]   (--quick: fewer repetitions, sizes up to 16 MiB)
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "shm/channel.h"
#include "shm/document_buffer.h"
#include "shm/fd_passing.h"
#include "shm/ring_consumer.h"
#include "shm/ring_producer.h"
#include "shm/sealed_document.h"

namespace mineru::shm {
namespace {

void Die(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "shm_bench: %s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

uint64_t SumWords(const uint8_t* p, uint64_t n) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a += w[0];
    b += w[1];
    c += w[2];
    d += w[3];
  }
  for (; i < n; ++i) a += p[i];
  return a + b + c + d;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

// Runs `child` in a forked process connected by a socketpair; returns the parent's end.
struct Child {
  pid_t pid;
  UniqueFd sock;
};
Child Fork(const std::function<void(int)>& child) {
  auto pair = SocketPair();
  Die(pair.status(), "socketpair");
  const pid_t pid = fork();
  if (pid < 0) Die(ErrnoStatus(errno, "fork"), "fork");
  if (pid == 0) {
    pair->first.reset();
    child(pair->second.get());
    _exit(0);
  }
  return Child{pid, std::move(pair->first)};
}
void Reap(Child& c) {
  c.sock.reset();
  int status;
  waitpid(c.pid, &status, 0);
}

int Reps(uint64_t size, bool quick) {
  const uint64_t target = quick ? (256ull << 20) : (2ull << 30);
  return static_cast<int>(std::clamp<uint64_t>(target / size, 5, quick ? 50 : 400));
}

double MemcpyGbps(uint64_t size, int reps, const std::vector<uint8_t>& src) {
  std::vector<uint8_t> dst(size, 1);
  std::vector<double> secs;
  for (int r = 0; r < reps; ++r) {
    Stopwatch sw;
    std::memcpy(dst.data(), src.data(), size);
    secs.push_back(sw.ElapsedSeconds());
  }
  if (SumWords(dst.data(), 64) == 42) std::puts("");  // keep the copy observable
  return static_cast<double>(size) / Median(secs) / 1e9;
}

// Context for (b): writing `size` bytes into freshly mapped anonymous memory (page allocation and
// zeroing included), the cost any path pays that hands over new memory per document.
double FirstTouchGbps(uint64_t size, int reps, const std::vector<uint8_t>& src) {
  std::vector<double> secs;
  for (int r = 0; r < reps; ++r) {
    Stopwatch sw;
    auto region = MappedRegion::Anonymous(size);
    Die(region.status(), "mmap");
    std::memcpy(region->data(), src.data(), size);
    secs.push_back(sw.ElapsedSeconds());
  }
  return static_cast<double>(size) / Median(secs) / 1e9;
}

// (b): the app fills a fresh memfd, seals it and submits it; the other process maps it read-only and
// reads every byte, then answers with the sum.
// With `copy_in` the app hands over bytes it already holds (DocumentBuffer::CopyOf: write(2) into
// the memfd) instead of filling a mapping.
double MemfdGbps(uint64_t size, int reps, const std::vector<uint8_t>& src, bool copy_in) {
  Child child = Fork([](int sock) {
    auto ch = Channel::FromFd(UniqueFd(dup(sock)));
    while (true) {
      auto got = ch->Receive();
      if (!got.ok()) return;
      const auto& submit = std::get<SubmitRequest>(got->message);
      auto doc = SealedDocument::Adopt(std::move(got->fds[0]), submit.document_bytes, 1ull << 40);
      Die(doc.status(), "adopt");
      const uint64_t sum = SumWords(doc->bytes().data(), doc->size());
      Die(ch->Send(Pong{sum, ""}), "reply");
    }
  });
  auto ch = Channel::FromFd(std::move(child.sock));
  Die(ch.status(), "channel");
  std::vector<double> secs;
  const uint64_t expected = SumWords(src.data(), size);
  for (int r = 0; r < reps; ++r) {
    Stopwatch sw;
    auto buffer = copy_in ? DocumentBuffer::CopyOf(std::span<const uint8_t>(src.data(), size))
                          : DocumentBuffer::Create(size, /*populate=*/true);
    Die(buffer.status(), "create");
    if (!copy_in) std::memcpy(buffer->data().data(), src.data(), size);
    auto fd = buffer->Seal();
    Die(fd.status(), "seal");
    SubmitRequest submit;
    submit.request_id = static_cast<uint64_t>(r);
    submit.document_bytes = size;
    const int raw = fd->get();
    Die(ch->Send(submit, std::span<const int>(&raw, 1)), "submit");
    fd->reset();
    auto reply = ch->Receive();
    Die(reply.status(), "reply");
    secs.push_back(sw.ElapsedSeconds());
    if (std::get<Pong>(reply->message).nonce != expected) Die(DataLoss("checksum mismatch"), "memfd");
  }
  child.sock = ch->ReleaseFd();
  Reap(child);
  return static_cast<double>(size) / Median(secs) / 1e9;
}

// (c): the same bytes through the socket into a buffer on the other side, which reads them. With
// `fresh_buffer` the receiver puts each document in newly allocated memory, as a daemon that keeps
// every document for its job's life must; without, it reuses one warm buffer.
double SocketGbps(uint64_t size, int reps, const std::vector<uint8_t>& src, bool fresh_buffer) {
  Child child = Fork([size, fresh_buffer](int sock) {
    auto warm = MappedRegion::Anonymous(size);
    Die(warm.status(), "mmap");
    std::memset(warm->data(), 1, size);
    while (true) {
      MappedRegion fresh;
      if (fresh_buffer) {
        auto region = MappedRegion::Anonymous(size);
        Die(region.status(), "mmap");
        fresh = std::move(*region);
      }
      uint8_t* buf = fresh_buffer ? fresh.data() : warm->data();
      uint64_t got = 0;
      while (got < size) {
        const ssize_t n = read(sock, buf + got, size - got);
        if (n <= 0) return;
        got += static_cast<uint64_t>(n);
      }
      const uint64_t sum = SumWords(buf, size);
      if (write(sock, &sum, 8) != 8) return;
    }
  });
  std::vector<double> secs;
  const uint64_t expected = SumWords(src.data(), size);
  for (int r = 0; r < reps; ++r) {
    Stopwatch sw;
    Die(SendWithFds(child.sock.get(), std::span<const uint8_t>(src.data(), size)), "socket send");
    uint64_t sum = 0;
    if (read(child.sock.get(), &sum, 8) != 8) Die(Unavailable("no reply"), "socket");
    secs.push_back(sw.ElapsedSeconds());
    if (sum != expected) Die(DataLoss("checksum mismatch"), "socket");
  }
  Reap(child);
  return static_cast<double>(size) / Median(secs) / 1e9;
}

struct Latency {
  double p50_us;
  double p99_us;
};

Latency FromNanos(const std::vector<double>& ns, double scale = 1.0) {
  return Latency{Percentile(ns, 0.5) * scale / 1e3, Percentile(ns, 0.99) * scale / 1e3};
}

// 64-byte frames: header 24 + nonce 8 + string length 8 + 24 bytes of padding.
Latency ControlRoundTrip(int iters) {
  Child child = Fork([](int sock) {
    auto ch = Channel::FromFd(UniqueFd(dup(sock)));
    while (true) {
      auto got = ch->Receive();
      if (!got.ok()) return;
      const auto& ping = std::get<Ping>(got->message);
      if (!ch->Send(Pong{ping.nonce, ping.padding}).ok()) return;
    }
  });
  auto ch = Channel::FromFd(std::move(child.sock));
  Die(ch.status(), "channel");
  const std::string padding(24, 'p');
  if (EncodeFrame(Ping{0, padding}).size() != 64) Die(Internal("frame is not 64 bytes"), "control");
  std::vector<double> ns;
  for (int i = 0; i < iters; ++i) {
    Stopwatch sw;
    Die(ch->Send(Ping{static_cast<uint64_t>(i), padding}), "ping");
    auto got = ch->Receive();
    Die(got.status(), "pong");
    ns.push_back(static_cast<double>(sw.ElapsedNanos()));
  }
  child.sock = ch->ReleaseFd();
  Reap(child);
  ns.erase(ns.begin(), ns.begin() + iters / 10);  // warm-up
  return FromNanos(ns);
}

Latency BareSocketRoundTrip(int iters) {
  Child child = Fork([](int sock) {
    uint8_t buf[64];
    while (true) {
      size_t got = 0;
      while (got < 64) {
        const ssize_t n = read(sock, buf + got, 64 - got);
        if (n <= 0) return;
        got += static_cast<size_t>(n);
      }
      if (write(sock, buf, 64) != 64) return;
    }
  });
  uint8_t buf[64] = {};
  std::vector<double> ns;
  for (int i = 0; i < iters; ++i) {
    Stopwatch sw;
    if (write(child.sock.get(), buf, 64) != 64) Die(Unavailable("write"), "bare");
    size_t got = 0;
    while (got < 64) {
      const ssize_t n = read(child.sock.get(), buf + got, 64 - got);
      if (n <= 0) Die(Unavailable("read"), "bare");
      got += static_cast<size_t>(n);
    }
    ns.push_back(static_cast<double>(sw.ElapsedNanos()));
  }
  Reap(child);
  ns.erase(ns.begin(), ns.begin() + iters / 10);
  return FromNanos(ns);
}

// One hop = half a round trip over two rings (there and back), each 64-byte record.
Latency RingHop(int iters, bool spin) {
  auto to_child = RingProducer::Create();
  Die(to_child.status(), "ring");
  auto back = RingProducer::Create();
  Die(back.status(), "ring");
  auto to_child_fds = to_child->DupFdsForConsumer();
  Die(to_child_fds.status(), "dup");
  Child child = Fork([&](int sock) {
    auto in = RingConsumer::Attach(std::move(*to_child_fds));
    Die(in.status(), "attach");
    std::vector<uint8_t> record;
    while (true) {
      if (spin) {
        auto got = in->TryRead(&record);
        if (!got.ok()) return;
        if (!*got) continue;
      } else if (!in->Read(&record, Deadline::Never(), sock).ok()) {
        return;
      }
      if (!back->Write(record, Deadline::Never(), sock).ok()) return;
    }
  });
  to_child_fds->data.reset();
  auto back_fds = back->DupFdsForConsumer();
  Die(back_fds.status(), "dup");
  auto in = RingConsumer::Attach(std::move(*back_fds));
  Die(in.status(), "attach");
  std::vector<uint8_t> record(64, 7), reply;
  std::vector<double> ns;
  for (int i = 0; i < iters; ++i) {
    Stopwatch sw;
    Die(to_child->Write(record, Deadline::Never(), child.sock.get()), "ring write");
    if (spin) {
      while (true) {
        auto got = in->TryRead(&reply);
        Die(got.status(), "ring read");
        if (*got) break;
      }
    } else {
      Die(in->Read(&reply, Deadline::Never(), child.sock.get()), "ring read");
    }
    ns.push_back(static_cast<double>(sw.ElapsedNanos()));
  }
  to_child->Close();
  Reap(child);
  ns.erase(ns.begin(), ns.begin() + iters / 10);
  return FromNanos(ns, 0.5);
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

std::string SizeName(uint64_t size) {
  return size >= (1 << 20) ? std::to_string(size >> 20) + " MiB" : std::to_string(size >> 10) + " KiB";
}

}  // namespace
}  // namespace mineru::shm

int main(int argc, char** argv) {
  using namespace mineru::shm;
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  utsname uts{};
  uname(&uts);
  std::printf("shm_bench%s: %s, %ld cores online, Linux %s. Throughput in GB/s (median of repetitions).\n\n",
              quick ? " --quick" : "", CpuModel().c_str(), sysconf(_SC_NPROCESSORS_ONLN), uts.release);

  std::vector<uint64_t> sizes = {64ull << 10, 1ull << 20, 16ull << 20};
  if (!quick) sizes.push_back(256ull << 20);
  std::vector<uint8_t> src(sizes.back());
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + (i >> 12));

  std::printf(
      "| size    | (a) memcpy | (b) memfd zero-copy | (b)/(a) | (b2) memfd copy-in | (b2)/(a) | (c) socket "
      "| (b)/(c) | (b2)/(c) | (c') socket, fresh buffer | fresh-page copy |\n");
  std::printf(
      "|---------|------------|---------------------|---------|--------------------|----------|------------"
      "|---------|----------|---------------------------|-----------------|\n");
  for (uint64_t size : sizes) {
    const int reps = Reps(size, quick);
    const double a = MemcpyGbps(size, reps, src);
    const double b = MemfdGbps(size, reps, src, /*copy_in=*/false);
    const double b2 = MemfdGbps(size, reps, src, /*copy_in=*/true);
    const double c = SocketGbps(size, reps, src, /*fresh_buffer=*/false);
    const double c2 = SocketGbps(size, reps, src, /*fresh_buffer=*/true);
    const double d = FirstTouchGbps(size, reps, src);
    std::printf(
        "| %-7s | %10.2f | %19.2f | %6.2fx | %18.2f | %7.2fx | %10.2f | %6.2fx | %7.2fx | %25.2f | %15.2f "
        "|\n",
        SizeName(size).c_str(), a, b, b / a, b2, b2 / a, c, b / c, b2 / c, c2, d);
    std::fflush(stdout);
  }

  const int iters = quick ? 2000 : 20000;
  const Latency control = ControlRoundTrip(iters);
  const Latency bare = BareSocketRoundTrip(iters);
  const Latency hop_spin = RingHop(iters, /*spin=*/true);
  const Latency hop_wake = RingHop(iters, /*spin=*/false);
  std::printf("\n| latency (64 B)                             | p50 us | p99 us | vs bare socket p50 |\n");
  std::printf("|--------------------------------------------|--------|--------|--------------------|\n");
  std::printf("| bare Unix socket ping-pong (round trip)    | %6.2f | %6.2f | %17.2fx |\n", bare.p50_us,
              bare.p99_us, 1.0);
  std::printf("| control channel Ping/Pong (round trip)     | %6.2f | %6.2f | %17.2fx |\n", control.p50_us,
              control.p99_us, control.p50_us / bare.p50_us);
  std::printf("| ring record hop, spinning consumer         | %6.2f | %6.2f |                    |\n",
              hop_spin.p50_us, hop_spin.p99_us);
  std::printf("| ring record hop, eventfd wake-up           | %6.2f | %6.2f |                    |\n",
              hop_wake.p50_us, hop_wake.p99_us);
  return 0;
}
