#include "engine/byte_level_bpe.h"

#include <algorithm>
#include <array>

#include "engine/tokenizer_utf8.h"

namespace mineru::engine {
namespace {

struct Symbol {
  int32_t id;
  int32_t prev;
  int32_t next;
  bool alive;
};

struct Candidate {
  int32_t rank;
  int32_t left;  // index of the left symbol
  int32_t left_id;
  int32_t right_id;
  int32_t merged_id;
};

bool IsPrintableByte(int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174); }

struct ByteTables {
  std::array<char32_t, 256> to_char{};
  std::unordered_map<char32_t, uint8_t> to_byte;
  ByteTables() {
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      to_char[b] = IsPrintableByte(b) ? static_cast<char32_t>(b) : next++;
      to_byte[to_char[b]] = static_cast<uint8_t>(b);
    }
  }
};

const ByteTables& Tables() {
  static const ByteTables tables;
  return tables;
}

}  // namespace

std::string ByteLevelChar(uint8_t b) {
  std::string out;
  AppendUtf8(Tables().to_char[b], &out);
  return out;
}

bool ByteLevelToBytes(std::string_view token_text, std::string* bytes) {
  bytes->clear();
  if (FindInvalidUtf8(token_text) != std::string_view::npos) return false;
  const auto& to_byte = Tables().to_byte;
  size_t pos = 0;
  while (pos < token_text.size()) {
    const char32_t cp = NextCodePoint(token_text, &pos);
    auto it = to_byte.find(cp);
    if (it == to_byte.end()) return false;
    bytes->push_back(static_cast<char>(it->second));
  }
  return true;
}

std::string BytesToByteLevel(std::string_view bytes) {
  std::string out;
  for (char c : bytes) AppendUtf8(Tables().to_char[static_cast<uint8_t>(c)], &out);
  return out;
}

Result<std::unique_ptr<ByteLevelBpe>> ByteLevelBpe::Create(
    const std::vector<std::pair<std::string, int64_t>>& vocab,
    const std::vector<std::pair<std::string, std::string>>& merges, const Options& options) {
  std::unique_ptr<ByteLevelBpe> bpe(new ByteLevelBpe(options));
  constexpr int64_t kMaxId = kMaxTokenId;
  int64_t max_id = -1;
  for (const auto& [text, id] : vocab) {
    if (id < 0 || id > kMaxId) {
      return InvalidArgument("model.vocab: token \"" + text + "\" has id " + std::to_string(id) +
                             " outside [0, " + std::to_string(kMaxId) + "]");
    }
    max_id = std::max(max_id, id);
  }
  bpe->id_to_bytes_.resize(static_cast<size_t>(max_id + 1));
  bpe->id_present_.assign(static_cast<size_t>(max_id + 1), false);
  bpe->bytes_to_id_.reserve(vocab.size());
  std::string bytes;
  for (const auto& [text, id] : vocab) {
    if (!ByteLevelToBytes(text, &bytes)) bytes = text;  // not byte-level: reachable by id only
    const auto index = static_cast<size_t>(id);
    if (bpe->id_present_[index]) {
      return InvalidArgument("model.vocab: id " + std::to_string(id) + " is used by two tokens (\"" +
                             BytesToByteLevel(bpe->id_to_bytes_[index]) + "\" and \"" + text + "\")");
    }
    bpe->id_present_[index] = true;
    bpe->id_to_bytes_[index] = bytes;
    bpe->bytes_to_id_.emplace(bytes, static_cast<int32_t>(id));
  }
  for (int b = 0; b < 256; ++b) {
    auto it = bpe->bytes_to_id_.find(std::string(1, static_cast<char>(b)));
    if (it == bpe->bytes_to_id_.end()) {
      return InvalidArgument("model.vocab: no token for byte " + std::to_string(b) + " (\"" +
                             ByteLevelChar(static_cast<uint8_t>(b)) +
                             "\"); a byte-level BPE vocabulary needs all 256");
    }
    bpe->byte_ids_[b] = it->second;
  }
  size_t slots = 16;
  int bits = 4;
  while (slots < merges.size() * 2) {
    slots <<= 1;
    ++bits;
  }
  bpe->merge_slots_.assign(slots, MergeSlot{});
  bpe->merge_shift_ = 64 - bits;
  std::string left, right;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [left_text, right_text] = merges[rank];
    const std::string where =
        "model.merges[" + std::to_string(rank) + "] (\"" + left_text + "\", \"" + right_text + "\"): ";
    if (!ByteLevelToBytes(left_text, &left) || !ByteLevelToBytes(right_text, &right)) {
      return InvalidArgument(where + "not byte-level text");
    }
    auto l = bpe->bytes_to_id_.find(left);
    auto r = bpe->bytes_to_id_.find(right);
    auto m = bpe->bytes_to_id_.find(left + right);
    if (l == bpe->bytes_to_id_.end() || r == bpe->bytes_to_id_.end() || m == bpe->bytes_to_id_.end()) {
      return InvalidArgument(where + "a part or the merged token is not in model.vocab");
    }
    // A repeated pair keeps its first (lowest) rank.
    const uint64_t key = PairKey(l->second, r->second);
    MergeSlot& slot = bpe->merge_slots_[bpe->FindSlot(key)];
    if (slot.key == kEmptyKey) {
      slot = MergeSlot{key, static_cast<int32_t>(rank), m->second};
      ++bpe->num_merges_;
    }
  }
  return bpe;
}

size_t ByteLevelBpe::FindSlot(uint64_t key) const {
  const size_t mask = merge_slots_.size() - 1;
  size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> merge_shift_);
  while (merge_slots_[i].key != key && merge_slots_[i].key != kEmptyKey) i = (i + 1) & mask;
  return i;
}

void ByteLevelBpe::EncodeWordUncached(std::string_view word, std::vector<int32_t>* out) const {
  if (word.empty()) return;
  if (options_.ignore_merges) {
    if (auto it = bytes_to_id_.find(std::string(word)); it != bytes_to_id_.end()) {
      out->push_back(it->second);
      return;
    }
  }
  const int n = static_cast<int>(word.size());
  if (n == 1) {
    out->push_back(byte_ids_[static_cast<uint8_t>(word[0])]);
    return;
  }
  // Scratch space reused across words on this thread (huge words get their own, freed after).
  thread_local std::vector<Symbol> scratch_symbols;
  thread_local std::vector<Candidate> scratch_heap;
  std::vector<Symbol> own_symbols;
  std::vector<Candidate> own_heap;
  constexpr int kScratchLimit = 1 << 12;
  std::vector<Symbol>& symbols = n <= kScratchLimit ? scratch_symbols : own_symbols;
  std::vector<Candidate>& heap = n <= kScratchLimit ? scratch_heap : own_heap;
  symbols.resize(static_cast<size_t>(n));
  heap.clear();
  for (int i = 0; i < n; ++i) {
    symbols[i] = {byte_ids_[static_cast<uint8_t>(word[i])], i - 1, i + 1 < n ? i + 1 : -1, true};
  }
  const auto later = [](const Candidate& a, const Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.left > b.left;
  };
  const auto consider = [&](int32_t left) {
    if (left < 0) return;
    const int32_t right = symbols[left].next;
    if (right < 0) return;
    const MergeSlot& slot = merge_slots_[FindSlot(PairKey(symbols[left].id, symbols[right].id))];
    if (slot.key == kEmptyKey) return;
    heap.push_back({slot.rank, left, symbols[left].id, symbols[right].id, slot.merged_id});
    std::push_heap(heap.begin(), heap.end(), later);
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Candidate c = heap.back();
    heap.pop_back();
    Symbol& l = symbols[c.left];
    if (!l.alive || l.id != c.left_id || l.next < 0) continue;
    Symbol& r = symbols[l.next];
    if (r.id != c.right_id) continue;
    l.id = c.merged_id;
    r.alive = false;
    l.next = r.next;
    if (r.next >= 0) symbols[r.next].prev = c.left;
    consider(l.prev);
    consider(c.left);
  }
  for (int i = 0; i >= 0; i = symbols[i].next) out->push_back(symbols[i].id);
}

void ByteLevelBpe::EncodeWord(std::string_view word, std::vector<int32_t>* out) const {
  if (options_.cache_capacity_words == 0 || word.size() > options_.cache_max_word_bytes || word.size() < 2) {
    EncodeWordUncached(word, out);
    return;
  }
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = cache_.find(word); it != cache_.end()) {
      out->insert(out->end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t start = out->size();
  EncodeWordUncached(word, out);
  std::vector<int32_t> ids(out->begin() + static_cast<std::ptrdiff_t>(start), out->end());
  std::lock_guard lock(cache_mu_);
  if (cache_.size() >= options_.cache_capacity_words) cache_.clear();
  cache_.emplace(std::string(word), std::move(ids));
}

void ByteLevelBpe::ClearCache() const {
  std::lock_guard lock(cache_mu_);
  cache_.clear();
}

const std::string* ByteLevelBpe::TokenBytes(int32_t id) const {
  if (id < 0 || id >= id_limit() || !id_present_[static_cast<size_t>(id)]) return nullptr;
  return &id_to_bytes_[static_cast<size_t>(id)];
}

std::optional<int32_t> ByteLevelBpe::FindBytes(std::string_view bytes) const {
  auto it = bytes_to_id_.find(std::string(bytes));
  if (it == bytes_to_id_.end()) return std::nullopt;
  return it->second;
}

}  // namespace mineru::engine
