#include "engine/paged_kv_cache.h"

#include "engine/torch_status.h"

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
  MINERU_RETURN_IF_ERROR(CatchTorch("allocating the kv cache", [&]() -> Status {
    const auto opts = at::TensorOptions().dtype(o.dtype).device(o.device);
    for (int64_t l = 0; l < o.num_layers; ++l) {
      c->keys_.push_back(at::zeros({o.num_pages * o.page_size_tokens, o.num_kv_heads, o.head_dim}, opts));
      c->values_.push_back(at::zeros({o.num_pages * o.page_size_tokens, o.num_kv_heads, o.head_dim}, opts));
    }
    return Status::Ok();
  }));
  for (int64_t p = o.num_pages - 1; p >= 0; --p) c->free_.push_back(p);
  return c;
}

uint64_t PagedKvCache::BytesPerToken() const {
  return static_cast<uint64_t>(options_.num_layers) * 2 * options_.num_kv_heads * options_.head_dim *
         c10::elementSize(options_.dtype);
}

Status PagedKvCache::Reserve(KvSequence& seq, int64_t total_tokens) {
  const int64_t need =
      PagesFor(total_tokens, options_.page_size_tokens) - static_cast<int64_t>(seq.pages_.size());
  if (need <= 0) return Status::Ok();
  if (need > free_pages()) {
    return ResourceExhausted("kv cache: " + std::to_string(total_tokens) + " tokens need " +
                             std::to_string(need) + " more pages, " + std::to_string(free_pages()) + " free");
  }
  for (int64_t i = 0; i < need; ++i) {
    seq.pages_.push_back(free_.back());
    free_.pop_back();
  }
  return Status::Ok();
}

void PagedKvCache::Free(KvSequence& seq) {
  for (auto it = seq.pages_.rbegin(); it != seq.pages_.rend(); ++it) free_.push_back(*it);
  seq.pages_.clear();
  seq.length_ = 0;
}

at::Tensor PagedKvCache::Slots(const KvSequence& seq, int64_t begin, int64_t end) const {
  const int64_t ps = options_.page_size_tokens;
  at::Tensor slots = at::empty({end - begin}, at::kLong);
  int64_t* s = slots.data_ptr<int64_t>();
  for (int64_t t = begin; t < end; ++t) s[t - begin] = seq.pages_[t / ps] * ps + t % ps;
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

}  // namespace mineru::engine
