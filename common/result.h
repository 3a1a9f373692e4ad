// Result<T>: a value or the Status that explains why there is none.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

#include "common/status.h"

namespace mineru {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::in_place_index<1>, std::move(status)) {  // NOLINT
    assert(!std::get<1>(v_).ok() && "Result built from an OK status");
    if (std::get<1>(v_).ok()) v_.template emplace<1>(Internal("Result built from an OK status"));
  }

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // OK when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<1>(v_); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Status> v_;
};

}  // namespace mineru

#define MINERU_CONCAT_INNER_(a, b) a##b
#define MINERU_CONCAT_(a, b) MINERU_CONCAT_INNER_(a, b)

// MINERU_ASSIGN_OR_RETURN(auto x, MakeX()); returns the status from the enclosing function on error.
#define MINERU_ASSIGN_OR_RETURN(lhs, expr) \
  MINERU_ASSIGN_OR_RETURN_IMPL_(MINERU_CONCAT_(mineru_result_, __LINE__), lhs, expr)
#define MINERU_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
