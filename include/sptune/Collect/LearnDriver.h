//===- LearnDriver.h - sptune-learn as a library call -----------*- C++ -*-===//
//
// Part of sptune. `sptune-learn` parses its command line into
// `LearnDriverOptions` and calls `runLearnDriver`: build the pool (replayed
// datasets, or matrices measured live through the collector's workers),
// split off the validation problems, turn the budget into round budgets,
// featurize every matrix and run the active-learning loop
// (sptune/Learn/LearningLoop.h) with progress on stderr.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COLLECT_LEARNDRIVER_H
#define SPTUNE_COLLECT_LEARNDRIVER_H

#include "sptune/Collect/MeasurementBackend.h"
#include "sptune/Collect/WorkerPool.h"
#include "sptune/Learn/LearningLoop.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

/// What a finished run's model achieved on the validation problems, next to
/// the rule it would replace (geometric means over the problems whose MLIR
/// default and heuristic were measured): what `sptune-learn adapt` decides
/// by whether release mode may use the model.
struct LearnDriverOutcome {
  /// The final model's top-1 pick over the MLIR default.
  std::optional<double> modelTop1;
  /// The heuristic's schedule over the MLIR default.
  std::optional<double> heuristicTop1;
  size_t problems = 0;
};

/// An sptune-learn run, as its command line gives it.
struct LearnDriverOptions {
  /// The loop's options. `target`, `policy`, `reward`, `roundBudgets`,
  /// `referenceCost`, `stop` and the callbacks are filled in by the driver
  /// from the fields below.
  LearnOptions learn;
  /// A registered target's name.
  std::string target = "cpu";
  /// "ucb1" or "thompson"; "top1" or "tau". The bandit's exploration
  /// constant and discount are `learn.banditOptions`.
  std::string policy = "ucb1", reward = "top1";
  /// What Hedge rewards an arm for: "found", "learned" or "lookahead".
  std::string hedgeReward = "found";

  /// Replay: measured datasets that reveal their stored times.
  std::vector<std::string> replay;
  /// Live: .mtx files, directories, gen: specs, @file lists.
  std::vector<std::string> matrixInputs;
  /// Fully measured validation problems (their matrices leave the pool);
  /// replay without it: a matrix split of the replayed data.
  std::vector<std::string> validationData;
  double validationFraction = 0.2;
  uint64_t splitSeed = 1;
  /// The bandit's reward set, apart from the reported validation problems:
  /// fully measured datasets (their matrices leave the pool); replay without
  /// them: this fraction of the pool's matrices (after the validation
  /// split, with the same seed) leaves the pool for every strategy, so that
  /// strategies compare on one pool; 0: the validation problems reward the
  /// bandit (what is reported then flatters it).
  std::vector<std::string> rewardData;
  double rewardFraction = 0.15;

  /// Round budgets: cumulative ("90", "90s", "5%") per round, or a total
  /// split into `rounds` equal rounds.
  std::vector<std::string> roundsAt;
  std::string budget;
  unsigned rounds = 6;
  /// Seconds that are 100% (0: replay's whole pool cost).
  double referenceCost = 0;

  /// Live measurement.
  std::vector<std::string> kernels;
  int64_t free = 64;
  /// The kernels' element width: 32 (f32) or 64 (f64).
  int elementBits = 32;
  unsigned candidates = 60;
  int64_t maxNnz = INT64_MAX;
  std::string dataset;
  unsigned workers = 1;
  double timeout = 60, minSeconds = 0.05;
  int minReps = 3;
  std::string workerExe;
  /// Makes the measurement backend (null = local workers) from the worker
  /// options and the dataset path: `BackendCommandLine::create`.
  std::function<llvm::Expected<std::shared_ptr<MeasurementBackend>>(
      const WorkerOptions &, const std::string &)>
      makeBackend;

  /// No transient progress line.
  bool quiet = false;
  /// Called once the pool is built and featurized, just before the loop
  /// (sptune-learn installs its SIGINT / SIGTERM handlers there: until then
  /// an interrupt ends the process, after it ends the round checkpointed).
  std::function<void()> beforeLoop;
  /// Filled in when the run finishes (not owned; null: not wanted).
  LearnDriverOutcome *outcome = nullptr;
};

/// "5%" -> 0.05 * reference, "90" / "90s" -> 90; an error for anything else
/// (and for a percentage without a reference).
llvm::Expected<double> parseLearnBudget(llvm::StringRef text,
                                        double reference);

/// Why `options` cannot run ("" when they can): values out of range, an
/// output that cannot be replaced, unknown kernels, and for live learning the
/// measurement options and the worker executable. Checked by
/// `runLearnDriver` before anything is read or measured.
std::string whyInvalidLearnOptions(const LearnDriverOptions &options);

/// Runs (or resumes) it; messages go to stderr prefixed "sptune-learn: ".
/// Returns the exit status: 0, 2 for bad options or a failed run, 130 when
/// `stop` was raised (the state is checkpointed; the same command resumes).
int runLearnDriver(LearnDriverOptions options, const std::atomic<bool> &stop);

} // namespace sptune

#endif // SPTUNE_COLLECT_LEARNDRIVER_H
