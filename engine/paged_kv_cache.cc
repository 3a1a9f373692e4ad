// PagedKvCache: see paged_kv_cache.h.
#include "engine/paged_kv_cache.h"

#include <algorithm>

#include "engine/local_kv_pages.h"
#include "engine/residency_kv_pages.h"
#include "engine/torch_status.h"
#include "residency/unit.h"

namespace mineru::engine {

Result<std::unique_ptr<PagedKvCache>> PagedKvCache::Create(const PagedKvCacheOptions& o) {
  if (o.num_layers <= 0 || o.num_kv_heads <= 0 || o.head_dim <= 0) {
    return InvalidArgument("kv cache: layers, kv heads and head_dim must be positive");
  }
  if (o.page_size_tokens <= 0 || o.page_size_tokens > (1 << 24)) {
    return InvalidArgument("kv cache: page size " + std::to_string(o.page_size_tokens) +
                           " tokens is out of range");
  }
  if (o.num_pages <= 0) return InvalidArgument("kv cache: the pool needs at least one page");
  std::unique_ptr<PagedKvCache> c(new PagedKvCache());
  c->options_ = o;
  const int64_t elements = o.num_layers * 2 * o.num_kv_heads * o.head_dim;
  if (o.residency != nullptr) {
    MINERU_ASSIGN_OR_RETURN(c->provider_, ResidencyKvPages::Create(o.residency, o.num_pages,
                                                                   o.page_size_tokens, elements, o.dtype));
    c->options_.device = c->provider_->storage().device();
  } else {
    MINERU_ASSIGN_OR_RETURN(
        c->provider_, LocalKvPages::Create(o.num_pages, o.page_size_tokens, elements, o.dtype, o.device));
  }
  MINERU_RETURN_IF_ERROR(CatchTorch("viewing the kv pages", [&]() -> Status {
    const at::Tensor& storage = c->provider_->storage();
    // [pages, page, elements] -> [pages * page, layers, 2, kv_heads, head_dim]: views, no copy.
    at::Tensor tokens =
        storage.view({storage.size(0) * o.page_size_tokens, o.num_layers, 2, o.num_kv_heads, o.head_dim});
    for (int64_t l = 0; l < o.num_layers; ++l) {
      c->keys_.push_back(tokens.select(1, l).select(1, 0));
      c->values_.push_back(tokens.select(1, l).select(1, 1));
    }
    return Status::Ok();
  }));
  return c;
}

uint64_t PagedKvCache::BytesPerToken(const TextConfig& config, at::ScalarType dtype) {
  return static_cast<uint64_t>(config.num_layers) * 2 * static_cast<uint64_t>(config.num_kv_heads) *
         static_cast<uint64_t>(config.head_dim) * c10::elementSize(dtype);
}

uint64_t PagedKvCache::PoolBytes(const TextConfig& config, at::ScalarType dtype, int64_t page_size_tokens,
                                 int64_t capacity_tokens) {
  const uint64_t pages =
      static_cast<uint64_t>(PagesFor(std::max<int64_t>(capacity_tokens, 1), page_size_tokens)) + 1;
  const uint64_t bytes = pages * static_cast<uint64_t>(page_size_tokens) * BytesPerToken(config, dtype);
  return (bytes + residency::kBufferAlignBytes - 1) / residency::kBufferAlignBytes *
         residency::kBufferAlignBytes;
}

uint64_t PagedKvCache::BytesPerToken() const {
  return static_cast<uint64_t>(options_.num_layers) * 2 * options_.num_kv_heads * options_.head_dim *
         c10::elementSize(options_.dtype);
}

Status PagedKvCache::Reserve(KvSequence& seq, int64_t total_tokens) {
  if (seq.swapped_) return FailedPrecondition("kv cache: the sequence is swapped out");
  if (total_tokens <= seq.reserved_) return Status::Ok();
  if (!seq.registered_) {
    MINERU_ASSIGN_OR_RETURN(seq.id_, provider_->AddSequence());
    seq.registered_ = true;
  }
  MINERU_ASSIGN_OR_RETURN(std::vector<int64_t> added,
                          provider_->Append(seq.id_, total_tokens - seq.reserved_));
  seq.pages_.insert(seq.pages_.end(), added.begin(), added.end());
  seq.reserved_ = total_tokens;
  peak_pages_used_ = std::max(peak_pages_used_, num_pages() - free_pages());
  return Status::Ok();
}

void PagedKvCache::Free(KvSequence& seq) {
  if (seq.registered_) provider_->FreeSequence(seq.id_).IgnoreError();  // only fails for an unknown id
  seq.registered_ = false;
  seq.swapped_ = false;
  seq.id_ = 0;
  seq.pages_.clear();
  seq.reserved_ = 0;
  seq.length_ = 0;
}

Status PagedKvCache::SwapOut(KvSequence& seq) {
  if (seq.swapped_) return FailedPrecondition("kv cache: the sequence is already swapped out");
  if (!seq.registered_) return Status::Ok();  // nothing written yet: nothing to keep
  MINERU_RETURN_IF_ERROR(provider_->SwapOut(seq.id_));
  seq.pages_.clear();
  seq.swapped_ = true;
  return Status::Ok();
}

Status PagedKvCache::SwapIn(KvSequence& seq) {
  if (!seq.swapped_) return Status::Ok();
  MINERU_ASSIGN_OR_RETURN(seq.pages_, provider_->SwapIn(seq.id_));
  seq.swapped_ = false;
  peak_pages_used_ = std::max(peak_pages_used_, num_pages() - free_pages());
  return Status::Ok();
}

int64_t PagedKvCache::SlotOf(const KvSequence& seq, int64_t t) const {
  const int64_t ps = options_.page_size_tokens;
  return seq.pages_[t / ps] * ps + t % ps;
}

at::Tensor PagedKvCache::Slots(const KvSequence& seq, int64_t begin, int64_t end) const {
  at::Tensor slots = at::empty({end - begin}, at::kLong);
  int64_t* s = slots.data_ptr<int64_t>();
  for (int64_t t = begin; t < end; ++t) s[t - begin] = SlotOf(seq, t);
  return slots.to(options_.device);
}

void PagedKvCache::Write(int64_t layer, const KvSequence& seq, int64_t start, const at::Tensor& k,
                         const at::Tensor& v) {
  at::Tensor slots = Slots(seq, start, start + k.size(0));
  keys_[layer].index_copy_(0, slots, k.to(options_.dtype));
  values_[layer].index_copy_(0, slots, v.to(options_.dtype));
}

std::pair<at::Tensor, at::Tensor> PagedKvCache::Read(int64_t layer, const KvSequence& seq, int64_t begin,
                                                     int64_t end) const {
  at::Tensor slots = Slots(seq, begin, end);
  return {keys_[layer].index_select(0, slots), values_[layer].index_select(0, slots)};
}

void PagedKvCache::WriteTokens(int64_t layer, std::span<const KvSequence* const> seqs,
                               std::span<const int64_t> positions, const at::Tensor& k, const at::Tensor& v) {
  at::Tensor slots = at::empty({static_cast<int64_t>(seqs.size())}, at::kLong);
  int64_t* sp = slots.data_ptr<int64_t>();
  for (size_t i = 0; i < seqs.size(); ++i) sp[i] = SlotOf(*seqs[i], positions[i]);
  slots = slots.to(options_.device);
  keys_[layer].index_copy_(0, slots, k.to(options_.dtype));
  values_[layer].index_copy_(0, slots, v.to(options_.dtype));
}

std::vector<int64_t> PagedKvCache::PaddedSlots(std::span<const KvSequence* const> seqs,
                                               std::span<const int64_t> lengths, int64_t begin,
                                               int64_t end) const {
  const int64_t n = end - begin;
  std::vector<int64_t> slots(seqs.size() * static_cast<size_t>(n), 0);  // slot 0: the null page
  for (size_t i = 0; i < seqs.size(); ++i) {
    for (int64_t t = begin; t < std::min(end, lengths[i]); ++t)
      slots[i * static_cast<size_t>(n) + static_cast<size_t>(t - begin)] = SlotOf(*seqs[i], t);
  }
  return slots;
}

std::pair<at::Tensor, at::Tensor> PagedKvCache::ReadPadded(int64_t layer,
                                                           std::span<const KvSequence* const> seqs,
                                                           std::span<const int64_t> lengths, int64_t begin,
                                                           int64_t end) const {
  const at::Tensor slots = at::tensor(PaddedSlots(seqs, lengths, begin, end), at::kLong).to(options_.device);
  const std::vector<int64_t> shape = {static_cast<int64_t>(seqs.size()), end - begin, options_.num_kv_heads,
                                      options_.head_dim};
  return {keys_[layer].index_select(0, slots).view(shape), values_[layer].index_select(0, slots).view(shape)};
}

}  // namespace mineru::engine
