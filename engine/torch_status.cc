#include "engine/torch_status.h"

#include <c10/util/Exception.h>

#include <new>

namespace mineru::engine {

Status StatusFromCurrentException(std::string_view what) {
  std::string prefix(what);
  try {
    throw;
  } catch (const c10::Error& e) {
    // c10::Error::what() carries a C++ backtrace; the short message is what people need.
    return Internal(prefix + ": " + e.msg());
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(prefix + ": out of memory");
  } catch (const std::exception& e) {
    return Internal(prefix + ": " + e.what());
  } catch (...) {
    return Internal(prefix + ": unknown exception");
  }
}

}  // namespace mineru::engine
