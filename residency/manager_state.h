// The ResidencyManager's bookkeeping (private to residency/). Everything here is guarded by
// State::mu; nothing here calls the device.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "residency/device.h"
#include "residency/pending_copy.h"
#include "residency/range_allocator.h"
#include "residency/residency_manager.h"

namespace mineru::residency {

// One tier's accounting. reserved counts charges (weights from the moment a load is decided, victims
// until their buffers are freed, KV pool, workspace); allocated counts buffers that exist.
struct Ledger {
  uint64_t budget = 0;
  uint64_t reserved = 0;
  uint64_t allocated = 0;
  uint64_t peak = 0;
  uint64_t weights = 0;
  uint64_t kv = 0;
  uint64_t workspace = 0;
  void Allocated(uint64_t n) {
    allocated += n;
    if (allocated > peak) peak = allocated;
  }
};

enum class CopyPhase : uint8_t { kAbsent, kArriving, kReady };

// A unit's copy on kGpu or kPinned.
struct UnitCopy {
  CopyPhase phase = CopyPhase::kAbsent;
  DeviceBuffer buffer;         // kGpu
  uint64_t pinned_offset = 0;  // kPinned: range in the arena
  uint8_t* data = nullptr;
  std::shared_ptr<PendingCopy> pending;  // while arriving
  std::vector<at::Tensor> tensors;       // views, built once per arrival
  uint32_t leases = 0;
  uint32_t readers = 0;        // copies reading from this one
  bool source_pinned = false;  // kGpu arriving from the pinned copy (holds a reader there)
  bool source_gpu = false;     // kPinned arriving from the kGpu copy (holds a reader there)
  bool prefetched = false;     // arrived by prefetch and not yet acquired
  uint64_t last_use = 0;       // LRU clock
};

struct UnitState {
  UnitSpec spec;
  uint64_t footprint = 0;
  int64_t rank = 0;
  std::vector<uint64_t> tensor_offsets;
  std::vector<at::Tensor> disk_tensors;
  std::vector<const uint8_t*> tensor_src;  // each tensor's bytes in its mapped file
  UnitCopy copies[2];                      // [kGpu], [kPinned]
  bool resident_set = false;               // placement: stays on kGpu
  bool streamed = false;                   // placement: in the schedule, not in the resident set
  std::vector<size_t> positions;           // in the schedule, ascending
};

struct Grave {
  DeviceBuffer buffer;
  uint64_t charge = 0;
};

// A load decided under mu_ and carried out without it.
struct LoadPlan {
  UnitId unit = 0;
  Tier tier = Tier::kGpu;
  std::shared_ptr<PendingCopy> pending;
  uint8_t* pinned_dst = nullptr;            // kPinned: the arena range
  const uint8_t* contiguous_src = nullptr;  // a copy in the same layout, or null: per tensor from the file
  CopyQueue queue = CopyQueue::kHostToDevice;
  bool pageable = false;
};

struct ResidencyManager::State {
  ResidencyOptions options;
  std::mutex mu;
  std::condition_variable room_cv;  // a lease ended or memory was freed
  Ledger ledgers[2];                // [kGpu], [kPinned]
  DeviceBuffer pinned_arena;
  std::unique_ptr<RangeAllocator> pinned_ranges;
  std::vector<const MappedRegion*> regions;
  std::vector<uint64_t> region_sizes;
  uint64_t disk_bytes = 0;
  std::vector<UnitState> units;
  std::unordered_map<std::string, UnitId> by_name;
  int num_decoder_layers = 0;
  std::vector<UnitId> schedule;
  size_t cursor = 0;  // position of the last acquired unit in the schedule
  bool cursor_valid = false;
  std::vector<Grave> graveyard;  // buffers to free with mu released
  std::unique_ptr<KvPagePool> kv_pool;
  uint64_t clock = 0;
  MonoTime last_activity = MonoNow();
  uint32_t leases_held = 0;
  bool idle_demoted = false;
  Stats counters;  // the counter fields only
};

}  // namespace mineru::residency
