//===- TrainDriver.h - sptune-train as a library call -----------*- C++ -*-===//
//
// Part of sptune. `sptune-train` parses its command line into
// `TrainingRunOptions` (sptune/CostModel/TrainingRun.h) and calls
// `runTrainDriver`: say which machines the datasets hold, then train,
// fine-tune or evaluate, with status lines and warnings on stderr, results
// on stdout and (on a terminal) a progress line.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_TRAINDRIVER_H
#define SPTUNE_COSTMODEL_TRAINDRIVER_H

#include "sptune/CostModel/TrainingRun.h"

namespace sptune {

/// Runs `options` (training, or evaluation when `evaluateModel` is set).
/// The callbacks `onMessage`, `onProgress`, `onEpoch` and `onTrainingEnd`
/// are the driver's; `stop` and `onTrainingStart` (where the tool installs
/// its signal handlers) are the caller's. `quiet`: no progress line and only
/// the last epoch's line. Returns the exit status: 0, 1 on an error, 130
/// when stopped.
int runTrainDriver(TrainingRunOptions options, bool quiet);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_TRAINDRIVER_H
