// `check --threads N [--contexts M] [--seconds S]`: after the serial run of every case, N threads,
// each with M execution contexts of its own (a plugin per case attached to the context, as
// TensorRT attaches one per execution context, and a stream), enqueue every case at once for S
// seconds; every output must be bitwise equal to the serial run's.
#pragma once

#include "case_run.h"
#include "isolation.h"
#include "library.h"
#include "report.h"

namespace autoplugin::check {

// Runs in a child process with a GPU; its steps go to `report` as one case, "concurrency".
void run_concurrency(const Options& options, PluginLibrary& library, CapturingLogger& logger,
                     Report& report, ProgressChannel& channel);

}  // namespace autoplugin::check
