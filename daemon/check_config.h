// `minerud --check-config`: everything the daemon checks before it serves, without serving. It prints
// the whole effective configuration (every key, defaults and overrides applied) and then one line per
// check; every problem is reported, not only the first. The model folder is opened the way the daemon
// opens it at start (config, checkpoint header, tokenizer), through `open_model`, so the weights are
// not read.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "common/config.h"
#include "common/result.h"

namespace mineru::daemon {

struct CheckConfigOptions {
  std::string config_source;  // "/etc/minerud.conf", "defaults" ...: printed at the top
  // Opens the model folder of `config` as the daemon would and returns one line describing it; empty
  // when this minerud has no model backend (then a model_dir is an error).
  std::function<Result<std::string>(const Config&)> open_model;
};

// Prints the report on `out`; returns true when the daemon would start with this configuration.
bool RunCheckConfig(const Config& config, const CheckConfigOptions& options, std::FILE* out);

}  // namespace mineru::daemon
