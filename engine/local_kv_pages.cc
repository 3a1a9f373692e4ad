// LocalKvPages: see local_kv_pages.h.
#include "engine/local_kv_pages.h"

#include <string>

#include "engine/torch_status.h"

namespace mineru::engine {

Result<std::unique_ptr<LocalKvPages>> LocalKvPages::Create(int64_t usable_pages, int64_t page_size_tokens,
                                                           int64_t elements_per_token, at::ScalarType dtype,
                                                           at::Device device) {
  if (usable_pages < 1 || usable_pages >= (int64_t{1} << 31) - 1) {
    return InvalidArgument("kv cache: " + std::to_string(usable_pages) + " pages is out of range");
  }
  if (page_size_tokens < 1 || elements_per_token < 1) {
    return InvalidArgument("kv cache: page size and elements per token must be positive");
  }
  MINERU_ASSIGN_OR_RETURN(at::Tensor storage,
                          CatchTorch("allocating the kv cache", [&]() -> Result<at::Tensor> {
                            return at::zeros({usable_pages + 1, page_size_tokens, elements_per_token},
                                             at::TensorOptions().dtype(dtype).device(device));
                          }));
  return std::unique_ptr<LocalKvPages>(
      new LocalKvPages(static_cast<uint32_t>(usable_pages + 1), page_size_tokens, std::move(storage)));
}

Result<KvPageProvider::SequenceId> LocalKvPages::AddSequence() {
  const SequenceId id = next_id_++;
  sequences_.emplace(id, Sequence{});
  return id;
}

Result<std::vector<int64_t>> LocalKvPages::Append(SequenceId seq, int64_t num_tokens) {
  auto it = sequences_.find(seq);
  if (it == sequences_.end()) return NotFound("kv cache: no sequence " + std::to_string(seq));
  Sequence& s = it->second;
  const int64_t total = s.num_tokens + num_tokens;
  const int64_t need =
      (total + page_size_tokens_ - 1) / page_size_tokens_ - static_cast<int64_t>(s.pages.size());
  if (need > free_pages()) {
    return ResourceExhausted("kv cache: " + std::to_string(total) + " tokens need " + std::to_string(need) +
                             " more pages, " + std::to_string(free_pages()) + " free");
  }
  std::vector<int64_t> added;
  for (int64_t i = 0; i < need; ++i) {
    MINERU_ASSIGN_OR_RETURN(residency::PageId p, pages_.Allocate());
    s.pages.push_back(p);
    added.push_back(p);
  }
  s.num_tokens = total;
  return added;
}

Status LocalKvPages::FreeSequence(SequenceId seq) {
  auto it = sequences_.find(seq);
  if (it == sequences_.end()) return NotFound("kv cache: no sequence " + std::to_string(seq));
  for (residency::PageId p : it->second.pages) MINERU_RETURN_IF_ERROR(pages_.Release(p).status());
  sequences_.erase(it);
  return Status::Ok();
}

}  // namespace mineru::engine
