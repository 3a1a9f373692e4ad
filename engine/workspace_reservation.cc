#include "engine/workspace_reservation.h"

namespace mineru::engine {

Result<residency::WorkspaceReservation> ReserveActivations(residency::ResidencyManager* manager,
                                                           uint64_t bytes, const std::string& what) {
  if (manager == nullptr) return residency::WorkspaceReservation();
  Result<residency::WorkspaceReservation> reserved = manager->ReserveWorkspace(bytes);
  if (!reserved.ok() && reserved.status().code() == StatusCode::kResourceExhausted) {
    // Prefetches in flight hold their room until they land; landed and unleased, they can be evicted.
    MINERU_RETURN_IF_ERROR(manager->WaitForCopies());
    reserved = manager->ReserveWorkspace(bytes);
  }
  if (!reserved.ok())
    return reserved.status().WithContext("reserving the " + what + "'s activation workspace");
  return reserved;
}

}  // namespace mineru::engine
