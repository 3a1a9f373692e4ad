// libFuzzer target: the control-channel frame decoder, fed as a whole frame and as a byte stream
// (and, on the side, the result-record parser).
//
// Input layout: byte 0 = the number of fds to pretend arrived (0..7) and how to chunk the stream;
// the rest = stream bytes. Properties checked: nothing crashes or allocates beyond the limits; a frame
// that decodes re-encodes to bytes that decode again to the same bytes (the format is canonical).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "shm/frame.h"
#include "shm/frame_assembler.h"
#include "shm/result_record.h"

namespace {

using mineru::UniqueFd;
using namespace mineru::shm;

void CheckCanonical(const Message& message, uint32_t num_fds) {
  const std::vector<uint8_t> again = EncodeFrame(message, num_fds);
  auto decoded = DecodeFrameBytes(again, num_fds);
  if (!decoded.ok()) std::abort();  // what we decoded, we must be able to decode after encoding
  if (EncodeFrame(*decoded, num_fds) != again) std::abort();
}

std::vector<UniqueFd> FakeFds(uint32_t n) {
  std::vector<UniqueFd> fds;
  for (uint32_t i = 0; i < n; ++i) fds.emplace_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
  return fds;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint32_t num_fds = data[0] & 7;
  const size_t chunk = 1 + (data[0] >> 3) * 7;
  std::span<const uint8_t> stream(data + 1, size - 1);

  // 0. The same bytes as a result record (what a client parses out of the ring).
  auto record = ParseResultRecord(stream);
  if (record.ok()) {
    auto again = EncodeResultRecord(record->kind, record->role, record->job_id, record->page_index,
                                    record->name, record->data);
    if (!again.ok() || !std::equal(again->begin(), again->end(), stream.begin(), stream.end())) std::abort();
  }

  // 1. As one whole frame.
  auto message = DecodeFrameBytes(stream, num_fds);
  if (message.ok()) CheckCanonical(*message, num_fds);

  // 2. As a stream read in chunks, the fds arriving with the first chunk.
  FrameAssembler assembler;
  bool first = true;
  for (size_t at = 0; at < stream.size(); at += chunk) {
    const size_t n = std::min(chunk, stream.size() - at);
    if (!assembler.Feed(stream.subspan(at, n), first ? FakeFds(num_fds) : std::vector<UniqueFd>{}).ok())
      break;
    first = false;
    bool stop = false;
    while (true) {
      auto frame = assembler.Pop();
      if (!frame.ok()) {
        stop = true;
        break;
      }
      if (!*frame) break;
      auto decoded = DecodeFrame(**frame);
      if (decoded.ok()) CheckCanonical(*decoded, (*frame)->header.num_fds);
    }
    if (stop) break;
  }
  return 0;
}
