// `minerud plan --model DIR --vram-budget SIZE`: the residency planner's placement table and
// predicted throughput for a model folder, printed before anything is loaded onto a device.
#pragma once

#include <string>
#include <vector>

#include "common/config.h"

namespace mineru::pipeline {

// Runs the command with the arguments after `plan`; `config` (the daemon's, from its config file)
// gives the defaults the flags override. Returns the process exit code.
int RunPlanCommand(const Config& config, const std::vector<std::string>& args);

std::string PlanUsage();

}  // namespace mineru::pipeline
