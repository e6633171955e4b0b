//===- TrainingRun.h - A whole training or evaluation run -------*- C++ -*-===//
//
// Part of sptune. What `sptune-train` does, as library functions: read
// `sptune-collect` datasets, featurize their matrices, then either
//
//  - `runTraining`: hold out a fraction of the matrices, train (or fine-tune)
//    the ranking model, evaluate it on the training and held-out matrices and
//    write the model (with its provenance) and the metrics; or
//  - `runEvaluation`: evaluate an existing model on all the data.
//
// The run reports as it goes through callbacks (status lines, warnings,
// result lines, epochs, progress) so that a tool can print them in order;
// the returned result holds the same information for other callers. Errors
// are llvm::Errors with the message the tool prints; no exception escapes.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_TRAININGRUN_H
#define SPTUNE_COSTMODEL_TRAININGRUN_H

#include "sptune/CostModel/Dataset.h"
#include "sptune/CostModel/Trainer.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sptune {

/// What a message of a run is.
enum class TrainingMessageKind {
  /// A status line (what was read, featurized, trained, written).
  Note,
  /// Something the user should know; the text has no "warning: " prefix.
  Warning,
  /// A line of results (the metrics); `sptune-train` prints these on stdout.
  Result,
};

/// A run's progress, for a transient progress line.
struct TrainingRunProgress {
  enum class Phase { Featurizing, Training };
  Phase phase = Phase::Featurizing;
  /// Featurizing: the 1-based index of the matrix being featurized, the
  /// number of matrices and its id.
  size_t matrix = 0, matrices = 0;
  std::string matrixId;
  /// Training: the trainer's progress.
  TrainProgress training;
};

/// Everything a run needs. The defaults are `sptune-train`'s.
struct TrainingRunOptions {
  /// Datasets (JSONL); at least one.
  std::vector<std::string> dataFiles;
  /// Keep only the records measured on this machine (its cpu or its host,
  /// exactly: DatasetReader::setMachineFilter); empty: all. The run notes
  /// what it kept and fails when nothing is left.
  std::string machine;
  /// Target to train for (or evaluate on): a registered target's name.
  std::string target = "cpu";
  /// Model file to write (`runTraining` only).
  std::string outPath;
  int epochs = 40;
  /// Fraction of the matrices held out for evaluation (0: none).
  double holdout = 0.2;
  /// Seed of the split, the initialization and the batches.
  uint64_t seed = 0;
  /// Fine-tune this model (COGNATE) instead of training from scratch.
  std::string finetuneFrom;
  /// With `finetuneFrom`: also train the schedule encoder.
  bool finetuneScheduleEncoder = false;
  /// With `finetuneFrom`: what stays frozen, "encoders" (the default),
  /// "matrix" (= `finetuneScheduleEncoder`) or "none"; empty: the default.
  std::string finetuneFreeze;
  /// With `finetuneFrom`: pre-train the target's knob autoencoder again
  /// (sampled knob settings plus the training schedules) before
  /// fine-tuning, as training from scratch does.
  bool finetunePretrainAutoencoder = false;
  /// Ablations (`parseAblationList`: "no-config-mapper", "no-autoencoder",
  /// "single-scale", comma-separated) of a model trained from scratch. When
  /// fine-tuning, the base model's ablations are kept; a list given then
  /// must equal them.
  std::string ablations;
  /// Knobs the common features represent alike for every target
  /// (comma-separated sptune::sharedKnobNames(): "row-order") in a model
  /// trained from scratch, recorded in its file. When fine-tuning, the base
  /// model's are kept; a list given then must equal them.
  std::string sharedKnobs;
  /// The model `runEvaluation` evaluates.
  std::string evaluateModel;
  /// A model file to write again, unchanged, in this build's format to
  /// `outPath` (`upgradeModelFile`; no data, no training): a file written
  /// before the plain weights existed gets them.
  std::string upgradeModel;
  /// Checkpoint every epoch here and resume from it (empty: none).
  std::string checkpointDir;
  /// Append one JSON line per epoch to this file (empty: none).
  std::string logPath;
  /// Where the metrics JSON goes. `runTraining`: default the model path
  /// with .metrics.json; `runEvaluation`: none when empty.
  std::string metricsPath;
  /// `runEvaluation`: also write every group's scores and measured times
  /// here, one JSON line per group (EvaluationReport::toScoresJsonl), so
  /// that several models' scores can be combined offline; empty: none.
  std::string scoresPath;
  /// Ranking loss only (no runtime regression).
  bool noRegression = false;
  double learningRate = 2e-3;
  /// Cap of the ranking loss's margin, in log time (TrainOptions::margin).
  double margin = 0.1;
  /// Groups (problems) per step.
  int batchGroups = 8;
  /// Schedules drawn per group and step.
  int schedulesPerGroup = 32;
  /// LibTorch threads (0: one per core).
  int torchThreads = 1;
  /// The tool named in the model's provenance.
  std::string toolName = "sptune-train";

  /// Checked while featurizing and between training steps; when set, the
  /// run stops (after the last checkpoint) and its result says
  /// `interrupted`.
  const std::atomic<bool> *stop = nullptr;
  /// Status lines, warnings and result lines, in order.
  std::function<void(TrainingMessageKind, llvm::StringRef)> onMessage;
  /// Progress while featurizing and training (often; throttle to print).
  std::function<void(const TrainingRunProgress &)> onProgress;
  /// After every epoch, with the epoch's report and its status line
  /// (a warning about held-out matrices the model failed to score follows
  /// through `onMessage`).
  std::function<void(const EpochReport &, llvm::StringRef line)> onEpoch;
  /// Called once, just before the training loop starts (e.g. to install
  /// signal handlers that set `stop`).
  std::function<void()> onTrainingStart;
  /// Called once when the training loop returns, however it ended (e.g. to
  /// clear a progress line).
  std::function<void()> onTrainingEnd;
};

/// Shared by both kinds of run: what reading and featurizing saw.
struct DatasetRunSummary {
  DatasetCounts counts;
  /// Lines that could not be used (unparsable, other schema, bad schedule).
  size_t skippedLines = 0;
  /// Matrices featurized, and those that could not be loaded (skipped).
  size_t featurizedMatrices = 0;
  std::vector<std::string> unloadableMatrices;
  /// Problems (groups) of the target whose matrices could be loaded.
  size_t groups = 0;
};

/// `runTraining`'s result.
struct TrainingRunResult {
  DatasetRunSummary data;
  /// Interrupted through `stop`: nothing was written.
  bool interrupted = false;
  /// The split.
  size_t trainMatrices = 0, trainGroups = 0, trainSamples = 0;
  size_t heldOutGroups = 0, heldOutSamples = 0;
  std::vector<std::string> heldOutMatrices;
  /// Pre-training's reconstruction errors (empty when fine-tuning).
  std::vector<double> reconstructionErrors;
  /// Epochs completed in total, the epoch a checkpoint resumed from (0:
  /// none), training time and the per-epoch reports.
  int epochs = 0, resumedFrom = 0;
  double seconds = 0;
  std::vector<EpochReport> history;
  /// The final metrics.
  ModelEvaluation train, heldOut;
  /// Every warning reported, in order.
  std::vector<std::string> warnings;
  /// What was written.
  std::string modelPath, metricsPath;
  size_t modelBytes = 0, parameters = 0;
};

/// `runEvaluation`'s result.
struct EvaluationRunResult {
  DatasetRunSummary data;
  /// Interrupted through `stop` while featurizing.
  bool interrupted = false;
  /// The metrics over all the data.
  ModelEvaluation evaluation;
  /// The model was not trained for the data's target (zero-shot
  /// evaluation: said in a note and recorded as "zero_shot" in the metrics).
  bool zeroShot = false;
  std::vector<std::string> warnings;
  /// The metrics file written (empty: none).
  std::string metricsPath;
};

/// Trains (or fine-tunes) a model as `sptune-train` does and writes it and
/// its metrics. Fails for invalid options, unreadable or unusable data, a
/// model that cannot be loaded, created or written, and training errors.
llvm::Expected<TrainingRunResult>
runTraining(const TrainingRunOptions &options);

/// Reads `options.upgradeModel` and writes it to `options.outPath` in this
/// build's format, weights and configuration unchanged. Options that would
/// shape a model (shared knobs, ablations, fine-tuning, an evaluated model)
/// are refused rather than ignored; those of data and training (datasets,
/// epochs, ...) play no part.
llvm::Error upgradeModelFile(const TrainingRunOptions &options);

/// Evaluates `options.evaluateModel` on all the data (no training; writes
/// the metrics when `options.metricsPath` is set).
llvm::Expected<EvaluationRunResult>
runEvaluation(const TrainingRunOptions &options);

/// "12.3s", "4m05s", "1h02m".
std::string formatDuration(double seconds);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_TRAININGRUN_H
