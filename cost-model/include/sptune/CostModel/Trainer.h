//===- Trainer.h - Training, fine-tuning and evaluation ---------*- C++ -*-===//
//
// Part of sptune. Trains a `Model` on groups of measured schedules:
//
//  - ranking (WACO): a pairwise margin loss over schedules of the same
//    group, hinge(min(margin, |log t_a - log t_b|) - (s_a - s_b)) for a
//    faster than b, pairs within `pairTolerance` of each other left out;
//  - regression (optional): Huber loss between the score and
//    log(reference time / time), the reference being the MLIR default;
//  - reconstruction: each target's knob autoencoder keeps reconstructing
//    its knobs, so its latent code stays a code of the knobs.
//
// Fine-tuning (COGNATE) freezes the matrix encoder and the schedule encoder
// and trains only the target's autoencoder and the predictor, for targets
// where measurements are expensive (an accelerator's simulator, a GPU).
//
// Training is deterministic for a seed (batches are drawn from a generator
// reseeded per epoch, no dropout), checkpoints after every epoch and resumes
// from the last checkpoint to the same weights it would have reached.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_TRAINER_H
#define SPTUNE_COSTMODEL_TRAINER_H

#include "sptune/CostModel/Dataset.h"
#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/Metrics.h"
#include "sptune/CostModel/Model.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sptune {

/// Features of the matrices of a dataset, by matrix id.
using FeatureTable = std::unordered_map<std::string, MatrixFeatures>;

/// Reported after every optimizer step.
struct TrainProgress {
  int epoch = 0, epochs = 0; ///< 1-based current epoch
  size_t step = 0, stepsPerEpoch = 0;
  double loss = 0;             ///< running mean over the epoch
  double samplesPerSecond = 0; ///< schedules scored per second
  double etaSeconds = 0;       ///< to the end of training
};

/// `evaluate`'s result: the metrics over the groups the model scored, and
/// the groups it failed to score (left out of the metrics).
struct ModelEvaluation : EvaluationReport {
  /// Groups whose scoring failed (malformed features, a LibTorch error).
  size_t failedGroups = 0;
  /// The first of them: "<group key>: <message>" (empty when none failed).
  std::string firstError;
  /// Groups of kernels the model has no feature for (left out, as a
  /// dataset leaves out records of kernels no model has).
  size_t unmodeledGroups = 0;
};

/// Reported after every epoch.
struct EpochReport {
  int epoch = 0;
  double loss = 0, rankLoss = 0, regressionLoss = 0, reconstructionLoss = 0;
  double seconds = 0;
  /// Metrics on the validation groups, when given.
  std::optional<ModelEvaluation> validation;
};

/// What fine-tuning keeps frozen.
enum class FinetuneFreeze {
  /// The matrix encoder and the schedule encoder (COGNATE; the default):
  /// only the target's knob autoencoder and the predictor learn.
  Encoders,
  /// Only the matrix encoder: the schedule encoder learns too.
  Matrix,
  /// Nothing: every parameter learns (from the base model's weights).
  None,
};

/// "encoders" | "matrix" | "none".
const char *toString(FinetuneFreeze f);
std::optional<FinetuneFreeze> parseFinetuneFreeze(std::string_view name);

struct TrainOptions {
  /// Groups of other targets are ignored.
  TargetKind target = TargetKind::CPU;
  int epochs = 40;
  int groupsPerBatch = 8;
  /// Schedules drawn per group and step (all when the group is smaller).
  int schedulesPerGroup = 32;
  double learningRate = 2e-3;
  double weightDecay = 1e-5;
  double margin = 0.1;
  /// Weight of the regression term; 0 trains a pure ranking model.
  double regressionWeight = 0.5;
  double reconstructionWeight = 0.1;
  /// Pairs whose runtimes differ by less (relatively) are not ranked.
  double pairTolerance = 0.02;
  uint64_t seed = 0;
  /// COGNATE fine-tuning: only the target's autoencoder and the predictor
  /// learn; the feature normalization of the base model is kept.
  bool finetune = false;
  /// Fine-tuning also trains the schedule encoder (only the matrix encoder
  /// stays frozen): more capacity for a target whose knobs differ.
  bool finetuneScheduleEncoder = false;
  /// What fine-tuning freezes; `finetuneScheduleEncoder` means Matrix.
  FinetuneFreeze finetuneFreeze = FinetuneFreeze::Encoders;
  /// RS2 (repeated random sampling): each epoch trains on a new random
  /// subset of this fraction of the groups (1: every group every epoch).
  double epochGroupFraction = 1.0;
  /// Fit the standardization of the matrix features on these matrices
  /// instead of the training groups' (e.g. every matrix of an active-learning
  /// pool, whose features are known before anything is measured). Not
  /// owned; null: the training groups' matrices.
  const std::vector<const MatrixFeatures *> *normalizationMatrices = nullptr;
  /// Where to checkpoint after every epoch and resume from (empty: none).
  std::string checkpointDir;
  /// Evaluate the validation groups every this many epochs (and the last).
  int validateEvery = 5;
  /// LibTorch intra-op threads (0: leave LibTorch's default).
  int threads = 0;
  /// Checked between steps; when set, training stops after the last
  /// checkpoint and the result says `interrupted`.
  const std::atomic<bool> *stop = nullptr;
  /// Stop (as if interrupted) after this many epochs in total (0: never).
  int stopAfterEpoch = 0;
  /// Called once when training resumes from a checkpoint (with its epoch).
  std::function<void(int)> onResume;
  std::function<void(const TrainProgress &)> onProgress;
  std::function<void(const EpochReport &)> onEpoch;
};

struct TrainResult {
  bool ok = false;
  /// Why training failed, LibTorch's errors included (it never throws).
  std::string error;
  bool interrupted = false;
  /// Epochs completed in total, and the epoch a checkpoint resumed from (0:
  /// started fresh).
  int epochs = 0, resumedFrom = 0;
  double seconds = 0;
  std::vector<EpochReport> history;
};

/// Trains `model` in place on `groups` (their matrices must be in
/// `features`). `validation` groups are evaluated for the epoch reports
/// only; nothing is selected on them.
TrainResult train(Model &model, const std::vector<SampleGroup> &groups,
                  const FeatureTable &features, const TrainOptions &options,
                  const std::vector<SampleGroup> *validation = nullptr);

/// `train` with `options.finetune` set.
TrainResult finetune(Model &model, const std::vector<SampleGroup> &groups,
                     const FeatureTable &features, TrainOptions options,
                     const std::vector<SampleGroup> *validation = nullptr);

struct PretrainOptions {
  int steps = 400;
  int batch = 128;
  /// Knob settings sampled per target besides the given schedules.
  size_t sampledPerTarget = 2048;
  double learningRate = 3e-3;
  uint64_t seed = 0;
  /// Pre-train only this target's autoencoder (the others are left as
  /// they are and reported with error 0); nullopt: every target's.
  std::optional<TargetKind> only;
  /// Re-initialize each pre-trained autoencoder first (from `seed`), e.g.
  /// a fine-tuned base's, whose code of the target's knobs may be poor.
  bool reinitialize = false;
};

/// Pre-trains every target's knob autoencoder on reconstruction: knob
/// settings drawn by `sampleKnobSettings` plus `schedules` (e.g. a target's
/// enumerated space). Returns the final reconstruction error per target
/// (mean squared, in the order of the model's targets; 0 for a target
/// without knobs). Fails when LibTorch fails, e.g. for invalid options,
/// after which the autoencoders may be partly trained.
llvm::Expected<std::vector<double>>
pretrainAutoencoders(Model &model, const std::vector<Schedule> &schedules,
                     const PretrainOptions &options);

/// Sets `target`'s knob code to zero for every knob setting: the output
/// layer of its autoencoder (of its direct layer under the no-autoencoder
/// ablation) is zeroed, its first layer kept. Fine-tuning a model for a
/// target it was never trained for starts here (TrainingRun): the base's
/// code of that target's knobs was never tied to any measurement, so the
/// model starts from "those knobs make no difference", which is all the
/// base knows of them, and learns their effects from the target's data
/// (the output layer's gradients do not vanish at zero). Fails when
/// LibTorch fails or the model has no slot for `target`.
llvm::Error zeroKnobCode(Model &model, TargetKind target);

/// The gradient of the training loss over `groups` with respect to the
/// parameters `options` trains (its target, fine-tuning and freezing; the
/// knob autoencoders' reconstruction left out, since it does not depend on
/// what was measured), flattened in parameter order, at `model`'s weights
/// (left untouched). Each group (problem) weighs the same, as in the
/// reported metrics: its ranking loss is averaged over its pairs and its
/// regression over its samples, as a training step averages them, and the
/// groups are summed. With `focus` (one entry per group, one flag per
/// sample), only the pairs that hold a focused sample and the focused
/// samples' regression count, still divided by the whole group's pairs and
/// samples: the part of the training loss those samples add, given the
/// rest. The dot product of two such gradients is, to first order, how much
/// a gradient step on one lowers the other's loss (the active-learning
/// portfolio's "learned" reward; Adam's steps and clipping make that
/// approximate). Groups of other targets or without focused samples add
/// nothing.
llvm::Expected<std::vector<float>>
lossGradient(const Model &model, const std::vector<SampleGroup> &groups,
             const FeatureTable &features, const TrainOptions &options,
             const std::vector<std::vector<bool>> *focus = nullptr);

/// Scores every group and compares with the measurements. Groups whose
/// matrix has no features are skipped; groups the model fails to score are
/// counted in `failedGroups`, not in the metrics.
ModelEvaluation evaluate(const Model &model,
                         const std::vector<SampleGroup> &groups,
                         const FeatureTable &features);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_TRAINER_H
