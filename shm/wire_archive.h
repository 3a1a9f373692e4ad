// cereal archives for the wire: a binary output archive that appends to a byte vector, and an input
// archive that reads from a byte span and bounds every length before anything is allocated.
//
// Encoding (cereal's binary layout, host byte order = little-endian on every supported target):
// arithmetic values as their bytes; bool as one byte 0/1; enums as their underlying type; strings,
// vectors and maps as a uint64 count followed by the items.
//
// The input archive throws cereal::Exception on any violation (that is how cereal unwinds); the only
// caller, DecodePayload in frame.cc, catches it and returns a Status. Nothing throws past shm/.
#pragma once

#include <cereal/cereal.hpp>  // also brings cereal/types/common.hpp: enums as their underlying type
#include <cereal/types/map.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "shm/protocol.h"

namespace mineru::shm {

class WireOutputArchive : public cereal::OutputArchive<WireOutputArchive, cereal::AllowEmptyClassElision> {
 public:
  explicit WireOutputArchive(std::vector<uint8_t>& out)
      : cereal::OutputArchive<WireOutputArchive, cereal::AllowEmptyClassElision>(this), out_(out) {}

  void SaveBytes(const void* data, uint64_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    out_.insert(out_.end(), p, p + size);
  }

 private:
  std::vector<uint8_t>& out_;
};

class WireInputArchive : public cereal::InputArchive<WireInputArchive, cereal::AllowEmptyClassElision> {
 public:
  explicit WireInputArchive(std::span<const uint8_t> in)
      : cereal::InputArchive<WireInputArchive, cereal::AllowEmptyClassElision>(this), in_(in) {}

  void LoadBytes(void* data, uint64_t size) {
    if (size > remaining()) {
      throw cereal::Exception("truncated: " + std::to_string(size) + " bytes wanted, " +
                              std::to_string(remaining()) + " left");
    }
    if (size != 0) std::memcpy(data, in_.data() + pos_, size);
    pos_ += size;
  }
  // A count announced by the peer: every item takes at least one byte, so a count beyond the bytes
  // left (or beyond the protocol's caps) is refused before the container is resized.
  void CheckCount(uint64_t count) const {
    const uint64_t cap = kMaxStringBytes > kMaxListItems ? kMaxStringBytes : kMaxListItems;
    if (count > remaining() || count > cap) {
      throw cereal::Exception("length " + std::to_string(count) + " exceeds the " +
                              std::to_string(count > cap ? cap : remaining()) + " allowed here");
    }
  }
  uint64_t remaining() const { return in_.size() - pos_; }

 private:
  std::span<const uint8_t> in_;
  uint64_t pos_ = 0;
};

template <class T>
requires(std::is_arithmetic_v<T> &&
         !std::is_same_v<T, bool>) void CEREAL_SAVE_FUNCTION_NAME(WireOutputArchive& ar, const T& t) {
  ar.SaveBytes(&t, sizeof(t));
}
template <class T>
requires(std::is_arithmetic_v<T> &&
         !std::is_same_v<T, bool>) void CEREAL_LOAD_FUNCTION_NAME(WireInputArchive& ar, T& t) {
  ar.LoadBytes(&t, sizeof(t));
}

inline void CEREAL_SAVE_FUNCTION_NAME(WireOutputArchive& ar, const bool& b) {
  const uint8_t v = b ? 1 : 0;
  ar.SaveBytes(&v, 1);
}
inline void CEREAL_LOAD_FUNCTION_NAME(WireInputArchive& ar, bool& b) {
  uint8_t v = 0;
  ar.LoadBytes(&v, 1);
  if (v > 1) throw cereal::Exception("bool byte " + std::to_string(v) + " is not 0 or 1");
  b = v == 1;
}

template <class T>
void CEREAL_SERIALIZE_FUNCTION_NAME(WireOutputArchive& ar, cereal::NameValuePair<T>& t) {
  ar(t.value);
}
template <class T>
void CEREAL_SERIALIZE_FUNCTION_NAME(WireInputArchive& ar, cereal::NameValuePair<T>& t) {
  ar(t.value);
}

template <class T>
void CEREAL_SAVE_FUNCTION_NAME(WireOutputArchive& ar, const cereal::SizeTag<T>& t) {
  const uint64_t n = t.size;
  ar.SaveBytes(&n, sizeof(n));
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(WireInputArchive& ar, cereal::SizeTag<T>& t) {
  uint64_t n = 0;
  ar.LoadBytes(&n, sizeof(n));
  ar.CheckCount(n);
  t.size = static_cast<std::remove_reference_t<decltype(t.size)>>(n);
}

template <class T>
void CEREAL_SAVE_FUNCTION_NAME(WireOutputArchive& ar, const cereal::BinaryData<T>& bd) {
  ar.SaveBytes(bd.data, bd.size);
}
template <class T>
void CEREAL_LOAD_FUNCTION_NAME(WireInputArchive& ar, cereal::BinaryData<T>& bd) {
  ar.LoadBytes(bd.data, bd.size);
}

}  // namespace mineru::shm

CEREAL_SETUP_ARCHIVE_TRAITS(mineru::shm::WireInputArchive, mineru::shm::WireOutputArchive)
