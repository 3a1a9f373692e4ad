// mineructl's commands: each connects through libmineru-client, prints for people or as JSON lines
// (--json), and returns the process exit code.
#pragma once

#include "client/ctl_options.h"

namespace mineru::ctl {

int RunCommand(const CtlOptions& options);

}  // namespace mineru::ctl
