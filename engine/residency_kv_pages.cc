// ResidencyKvPages: see residency_kv_pages.h.
#include "engine/residency_kv_pages.h"

#include <string>

namespace mineru::engine {
namespace {

Result<residency::DType> KvDtype(at::ScalarType t) {
  switch (t) {
    case at::kFloat:
      return residency::DType::kF32;
    case at::kHalf:
      return residency::DType::kF16;
    case at::kBFloat16:
      return residency::DType::kBF16;
    default:
      return InvalidArgument("the KV page pool holds F32, F16 or BF16 only");
  }
}

}  // namespace

Result<std::unique_ptr<ResidencyKvPages>> ResidencyKvPages::Create(residency::ResidencyManager* manager,
                                                                   int64_t usable_pages,
                                                                   int64_t page_size_tokens,
                                                                   int64_t elements_per_token,
                                                                   at::ScalarType dtype) {
  if (manager == nullptr) return InvalidArgument("kv cache: no residency manager");
  if (usable_pages < 1 || page_size_tokens < 1 || elements_per_token < 1) {
    return InvalidArgument("kv cache: pages, page size and elements per token must be positive");
  }
  MINERU_ASSIGN_OR_RETURN(residency::DType dt, KvDtype(dtype));
  residency::KvPoolOptions o;
  o.page_size_tokens = static_cast<uint64_t>(page_size_tokens);
  o.bytes_per_token = static_cast<uint64_t>(elements_per_token) * residency::DTypeSizeBytes(dt);
  o.dtype = dt;
  o.num_pages = static_cast<uint64_t>(usable_pages) + 1;  // with the null page
  residency::KvPagePool* pool = manager->kv_pool();
  if (pool != nullptr) {
    const residency::KvPoolOptions& have = pool->options();
    if (have.page_size_tokens != o.page_size_tokens || have.bytes_per_token != o.bytes_per_token ||
        have.dtype != o.dtype) {
      return FailedPrecondition(
          "the residency manager's KV pool has pages of " + std::to_string(have.page_size_tokens) +
          " tokens x " + std::to_string(have.bytes_per_token) + " bytes (" +
          std::string(residency::DTypeName(have.dtype)) + "); this model needs " +
          std::to_string(o.page_size_tokens) + " x " + std::to_string(o.bytes_per_token) + " (" +
          std::string(residency::DTypeName(o.dtype)) + ")");
    }
  } else {
    Result<residency::KvPagePool*> created = manager->CreateKvPool(o);
    if (!created.ok()) return created.status().WithContext("creating the KV page pool");
    pool = *created;
  }
  return std::unique_ptr<ResidencyKvPages>(new ResidencyKvPages(pool));
}

ResidencyKvPages::~ResidencyKvPages() {
  for (SequenceId seq : live_) pool_->FreeSequence(seq).IgnoreError();
}

Result<KvPageProvider::SequenceId> ResidencyKvPages::AddSequence() {
  // The pool may be shared: skip ids another user holds.
  for (int attempt = 0; attempt < 1024; ++attempt) {
    const SequenceId id = next_id_++;
    Status s = pool_->AddSequence(id);
    if (s.ok()) {
      live_.insert(id);
      return id;
    }
    if (s.code() != StatusCode::kAlreadyExists) return s;
  }
  return Internal("kv cache: no free sequence id in the KV pool");
}

Result<std::vector<int64_t>> ResidencyKvPages::Append(SequenceId seq, int64_t num_tokens) {
  if (num_tokens < 0) return InvalidArgument("kv cache: negative token count");
  MINERU_ASSIGN_OR_RETURN(uint64_t before, pool_->NumTokens(seq));
  MINERU_ASSIGN_OR_RETURN(std::vector<residency::PageId> touched,
                          pool_->AppendTokens(seq, static_cast<uint64_t>(num_tokens)));
  // AppendTokens names the partly filled last page first (already in the table), then the new pages.
  const bool partial = num_tokens > 0 && before % pool_->options().page_size_tokens != 0;
  std::vector<int64_t> added;
  for (size_t i = partial ? 1 : 0; i < touched.size(); ++i) added.push_back(touched[i]);
  return added;
}

Status ResidencyKvPages::FreeSequence(SequenceId seq) {
  MINERU_RETURN_IF_ERROR(pool_->FreeSequence(seq));
  live_.erase(seq);
  return Status::Ok();
}

Status ResidencyKvPages::SwapOut(SequenceId seq) { return pool_->SwapOut(seq); }

Result<std::vector<int64_t>> ResidencyKvPages::SwapIn(SequenceId seq) {
  MINERU_RETURN_IF_ERROR(pool_->SwapIn(seq));
  MINERU_ASSIGN_OR_RETURN(std::vector<residency::PageId> table, pool_->PageTable(seq));
  return std::vector<int64_t>(table.begin(), table.end());
}

}  // namespace mineru::engine
