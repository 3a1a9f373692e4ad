// mineructl model pull / model list: models in the models folder, fetched from a Hugging Face-style
// hub (hub/model_pull.h). They need no daemon: the folder is what minerud's `model_dir = NAME` reads.
#pragma once

#include "client/ctl_options.h"
#include "client/ctl_printer.h"

namespace mineru::ctl {

int ModelPullCmd(const CtlOptions& options, Printer& printer);
int ModelListCmd(const CtlOptions& options, Printer& printer);

}  // namespace mineru::ctl
