#include "shm/frame_assembler.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace mineru::shm {

FrameAssembler::FrameAssembler(FrameLimits limits) : limits_(limits) {}

Status FrameAssembler::Fail(Status status) {
  error_ = std::move(status);
  buffer_.clear();
  buffer_.shrink_to_fit();
  consumed_ = 0;
  fd_batches_.clear();  // closes every fd held
  frame_fds_.clear();
  header_.reset();
  return error_;
}

Status FrameAssembler::Feed(std::span<const uint8_t> bytes, std::vector<UniqueFd> fds) {
  if (!error_.ok()) return error_;
  if (bytes.empty()) {
    if (!fds.empty()) return Fail(InvalidArgument("file descriptors arrived without data"));
    return Status::Ok();
  }
  const uint64_t chunk_begin = stream_offset_ + buffer_.size();
  if (!fds.empty()) {
    if (fds_pending() + fds.size() > limits_.max_fds) {
      return Fail(InvalidArgument("too many file descriptors pending on this connection"));
    }
    fd_batches_.push_back(FdBatch{chunk_begin, chunk_begin + bytes.size(), std::move(fds)});
  }
  // Compact the consumed prefix before growing.
  if (consumed_ > 0 && (consumed_ == buffer_.size() || consumed_ >= 64 * 1024)) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<ptrdiff_t>(consumed_));
    stream_offset_ += consumed_;
    consumed_ = 0;
  }
  // Bound what a peer can queue: one frame at the limit plus one more read's worth. A caller that
  // pops after every feed never gets near it.
  const uint64_t frame_limit = kFrameHeaderBytes + limits_.max_payload_bytes;
  if (buffered_bytes() + bytes.size() > 2 * frame_limit) {
    return Fail(ResourceExhausted("more bytes queued than two frames may hold; call Pop() between reads"));
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  return Status::Ok();
}

uint64_t FrameAssembler::fds_pending() const {
  uint64_t n = frame_fds_.size();
  for (const FdBatch& batch : fd_batches_) n += batch.fds.size();
  return n;
}

Result<std::optional<Frame>> FrameAssembler::Pop() {
  if (!error_.ok()) return error_;
  const uint64_t frame_start = stream_offset_ + consumed_;
  if (!header_) {
    // Fd batches whose chunk ended before this frame's first byte were claimed by no frame.
    if (!fd_batches_.empty() && fd_batches_.front().end_offset <= frame_start) {
      return Fail(InvalidArgument("file descriptors arrived with no frame starting beside them"));
    }
    if (buffered_bytes() < kFrameHeaderBytes) return std::optional<Frame>();
    auto header =
        ParseFrameHeader(std::span<const uint8_t>(buffer_).subspan(consumed_, kFrameHeaderBytes), limits_);
    if (!header.ok()) return Fail(header.status());
    header_ = *header;
    // The kernel ends a read right after the bytes of the sendmsg that carried fds, so a chunk's fds
    // belong to the last frame starting in it: this one, unless the chunk holds bytes past its end.
    if (!fd_batches_.empty() && fd_batches_.front().begin_offset <= frame_start &&
        frame_start + kFrameHeaderBytes + header_->payload_bytes >= fd_batches_.front().end_offset) {
      frame_fds_ = std::move(fd_batches_.front().fds);
      fd_batches_.pop_front();
    }
    if (frame_fds_.size() != header_->num_fds) {
      return Fail(InvalidArgument("frame announces " + std::to_string(header_->num_fds) + " fds but " +
                                  std::to_string(frame_fds_.size()) + " arrived with it"));
    }
  }
  const uint64_t total = kFrameHeaderBytes + header_->payload_bytes;
  if (buffered_bytes() < total) {
    // A later fd batch that starts inside this frame's bytes belongs to no frame.
    if (!fd_batches_.empty() && fd_batches_.front().begin_offset < frame_start + total &&
        fd_batches_.front().end_offset <= frame_start + total) {
      return Fail(InvalidArgument("file descriptors arrived in the middle of a frame"));
    }
    return std::optional<Frame>();
  }
  Frame frame;
  frame.header = *header_;
  const uint8_t* payload = buffer_.data() + consumed_ + kFrameHeaderBytes;
  frame.payload.assign(payload, payload + header_->payload_bytes);
  frame.fds = std::move(frame_fds_);
  frame_fds_.clear();
  consumed_ += total;
  header_.reset();
  // Fds that came in a chunk lying wholly inside this frame were claimed by no frame.
  if (!fd_batches_.empty() && fd_batches_.front().end_offset <= stream_offset_ + consumed_) {
    return Fail(InvalidArgument("file descriptors arrived in the middle of a frame"));
  }
  return std::optional<Frame>(std::move(frame));
}

}  // namespace mineru::shm
