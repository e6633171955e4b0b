//===- TrainDriver.cpp - What sptune-train does, as a library call --------===//

#include "sptune/CostModel/TrainDriver.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <unistd.h>

using namespace sptune;

int sptune::runTrainDriver(TrainingRunOptions options, bool quiet) {
  if (!options.upgradeModel.empty()) {
    if (llvm::Error e = upgradeModelFile(options)) {
      llvm::errs() << "sptune-train: error: " << llvm::toString(std::move(e))
                   << "\n";
      return 1;
    }
    llvm::errs() << "wrote " << options.outPath << "\n";
    return 0;
  }
  // Runtimes of different machines are not comparable: say which machines
  // the datasets hold, and keep one with --machine.
  {
    std::map<std::string, DatasetMachine> machines;
    if (llvm::Error e = datasetMachines(options.dataFiles, machines)) {
      llvm::errs() << "sptune-train: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
    for (const auto &[machine, data] : machines) {
      llvm::errs() << "machine: "
                   << (machine.empty() ? "(not recorded)" : machine) << ": "
                   << data.records << " record(s)";
      if (std::string facts = data.descriptor ? summary(*data.descriptor) : "";
          !facts.empty())
        llvm::errs() << " (" << facts << ")";
      llvm::errs() << "\n";
    }
    if (options.machine.empty() && machines.size() > 1)
      llvm::errs() << "warning: the datasets mix " << machines.size()
                   << " machines; runtimes of different machines are not "
                      "comparable: keep one with --machine CPU-or-HOST\n";
  }
  // Printing: status lines and warnings on stderr, results on stdout; on a
  // terminal (without --quiet) a progress line that later lines clear.
  bool tty = ::isatty(2) && !quiet;
  bool progressShown = false;
  auto clearProgress = [&] {
    if (tty)
      llvm::errs() << "\r\x1b[K";
    progressShown = false;
  };
  options.onMessage = [&](TrainingMessageKind kind, llvm::StringRef text) {
    switch (kind) {
    case TrainingMessageKind::Result:
      llvm::outs() << text << "\n";
      return;
    case TrainingMessageKind::Warning:
      // Keep the featurizing line above the warning.
      if (tty && progressShown)
        llvm::errs() << "\n";
      progressShown = false;
      llvm::errs() << "warning: " << text << "\n";
      return;
    case TrainingMessageKind::Note:
      if (progressShown)
        clearProgress();
      llvm::errs() << text << "\n";
      return;
    }
  };
  auto lastPrint = std::chrono::steady_clock::now();
  options.onProgress = [&](const TrainingRunProgress &p) {
    if (!tty)
      return;
    if (p.phase == TrainingRunProgress::Phase::Featurizing) {
      llvm::errs() << llvm::formatv("\rfeaturizing matrix {0}/{1}: {2}\x1b[K",
                                    p.matrix, p.matrices, p.matrixId);
      progressShown = true;
      return;
    }
    auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - lastPrint).count() < 0.25)
      return;
    lastPrint = now;
    const TrainProgress &t = p.training;
    llvm::errs() << llvm::formatv(
        "\repoch {0}/{1} step {2}/{3}  loss {4:f4}  {5:f0} schedules/s  ETA "
        "{6}\x1b[K",
        t.epoch, t.epochs, t.step, t.stepsPerEpoch, t.loss, t.samplesPerSecond,
        formatDuration(t.etaSeconds));
    progressShown = true;
  };
  options.onEpoch = [&](const EpochReport &e, llvm::StringRef line) {
    clearProgress();
    if (!quiet || e.epoch == options.epochs)
      llvm::errs() << line << "\n";
  };
  options.onTrainingEnd = [&] { clearProgress(); };

  bool wasInterrupted = false;
  llvm::Error error = llvm::Error::success();
  if (!options.evaluateModel.empty()) {
    llvm::Expected<EvaluationRunResult> result = runEvaluation(options);
    if (result)
      wasInterrupted = result->interrupted;
    else
      error = result.takeError();
  } else {
    llvm::Expected<TrainingRunResult> result = runTraining(options);
    if (result)
      wasInterrupted = result->interrupted;
    else
      error = result.takeError();
  }
  if (error) {
    if (progressShown)
      clearProgress();
    llvm::errs() << "sptune-train: error: " << llvm::toString(std::move(error))
                 << "\n";
    return 1;
  }
  return wasInterrupted ? 130 : 0;
}
