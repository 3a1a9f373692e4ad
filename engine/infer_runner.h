// RunInfer: what mineru-infer does for one parsed command line — load the model, encode the page,
// splice, prefill, generate, optionally write the logits — returning the JSON object it prints.
#pragma once

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "engine/infer_options.h"

namespace mineru::engine {

Result<nlohmann::json> RunInfer(const InferOptions& options);

}  // namespace mineru::engine
