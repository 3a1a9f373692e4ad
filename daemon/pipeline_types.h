// The pipeline's interface as the daemon names it: the daemon's rooms (scheduler, spool, server) speak
// of backends, their inputs and outputs without the pipeline:: prefix.
#pragma once

#include "pipeline/backend.h"

namespace mineru::daemon {

using pipeline::Backend;
using pipeline::BackendInput;
using pipeline::BackendOutput;
using pipeline::BackendStats;
using pipeline::CancelFlag;
using pipeline::OutputFile;
using pipeline::PageOutput;
using pipeline::PageProgressFn;
using pipeline::ValidateOutputPath;

}  // namespace mineru::daemon
