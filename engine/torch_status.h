// The engine/ boundary for libtorch exceptions: libtorch throws (c10::Error, std::exception);
// everything above engine/ takes Status. Wrap each call into libtorch that can fail on input.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/result.h"

namespace mineru::engine {

// Turns the exception in flight into a Status naming `what` (call only inside a catch block).
Status StatusFromCurrentException(std::string_view what);

// Runs `fn` (returning void, Status or Result<T>) and turns any exception into an error Status.
template <typename F>
auto CatchTorch(std::string_view what, F&& fn) -> decltype(fn()) {
  using R = decltype(fn());
  try {
    if constexpr (std::is_void_v<R>) {
      fn();
    } else {
      return fn();
    }
  } catch (...) {
    if constexpr (std::is_void_v<R>) {
      return;
    } else {
      return R(StatusFromCurrentException(what));
    }
  }
}

}  // namespace mineru::engine
