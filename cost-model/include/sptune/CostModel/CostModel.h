//===- CostModel.h - Ranking candidate schedules ----------------*- C++ -*-===//
//
// Part of sptune. The interface the `sptune-autotune` pass (and any tool)
// uses to order candidate schedules for a matrix. Plain C++, and no LibTorch
// behind it either: the learned modes score with PlainModel (the network's
// forward pass over the model file's plain weights). Three modes, as in
// LLVM's MLGO:
//
//   heuristic    no model: the heuristic default schedule first, then the
//                others by an analytical cost estimate (AnalyticalCost.h);
//   release      the default model shipped with sptune
//                (cost-model/models/<target>-default.pt, whose bytes are
//                compiled into the library: EmbeddedModels.h), or `model=`;
//   development  a model file given explicitly, plus a JSONL log of every
//                ranking request (for inspecting and debugging a model).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_COSTMODEL_H
#define SPTUNE_COSTMODEL_COSTMODEL_H

#include "sptune/CostModel/MatrixFeatures.h"
#include "sptune/CostModel/ModelGuard.h"
#include "sptune/Schedule/Schedule.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

enum class CostModelMode : uint8_t { Heuristic, Release, Development };

const char *toString(CostModelMode mode);
std::optional<CostModelMode> parseCostModelMode(std::string_view name);

/// The result of ranking candidates.
struct Ranking {
  /// One score per candidate, higher is predicted faster. For a calibrated
  /// model, the predicted log speedup over the MLIR default schedule; for the
  /// heuristic, minus the log of the analytical cost.
  std::vector<double> scores;
  /// Candidate indices, best first (equal scores keep candidate order).
  std::vector<size_t> order;
};

struct CostModelOptions {
  /// development mode: append one JSON line per `rank` call here (empty:
  /// no log).
  std::string logPath;
  /// release mode without a model file: the target whose shipped model
  /// (cost-model/models/<target>-default.pt) to load. A target without one
  /// is an error that says so (releaseModelSource tells beforehand).
  TargetKind target = TargetKind::CPU;
};

class CostModel {
public:
  virtual ~CostModel();
  CostModelMode mode() const { return mode_; }
  /// What identifies the model's decisions: "heuristic", or "model:" and a
  /// hash of the model file's bytes (the same file in release and
  /// development mode ranks the same). A tuning database reuses a decision
  /// only for a model of the same identity.
  const std::string &identity() const { return identity_; }
  /// One line: mode, model file, trained targets.
  virtual std::string description() const = 0;
  /// Whether `rank` can serve `target`.
  virtual bool supports(TargetKind target) const = 0;
  /// Whether `rank` can serve schedules of `kernel` (a learned model's
  /// features name the built-in kernels only, sptune/CostModel/
  /// ConfigurationMapper.h).
  virtual bool supportsKernel(KernelType kernel) const { return true; }

  /// Ranks `candidates` (schedules of `target`) for a matrix with
  /// `features`; `free` is the size of the free dense loop (0 = unknown).
  /// Fails when a candidate is of another target, the model was not trained
  /// for `target`, or the features are malformed. Thread-safe; 1,000
  /// candidates take a few milliseconds.
  virtual llvm::Expected<Ranking> rank(const MatrixFeatures &features,
                                       const std::vector<Schedule> &candidates,
                                       TargetKind target,
                                       int64_t free = 0) const = 0;

  /// The model's guard on its pick `pick` over the heuristic's schedule
  /// `heuristic` (sptune/CostModel/ModelGuard.h), for a matrix with
  /// `features` and free size `free`; nullopt when the model has no guard
  /// (the heuristic, or a model file without one): then its pick stands.
  virtual llvm::Expected<std::optional<GuardVerdict>>
  judgeOverHeuristic(const MatrixFeatures &features, const Schedule &pick,
                     const Schedule &heuristic, int64_t free) const {
    return std::nullopt;
  }

  /// A note for users when the model is not on a machine it was trained on
  /// (otherMachineNote, ModelGuard.h); "" otherwise, and for models without
  /// a guard.
  virtual std::string machineNote() const { return ""; }

protected:
  CostModel(CostModelMode mode, std::string identity)
      : mode_(mode), identity_(std::move(identity)) {}

private:
  CostModelMode mode_;
  std::string identity_;
};

/// Where the release model of `target` lives in the source tree (the file
/// the embedded release model was made from).
std::string defaultModelPath(TargetKind target = TargetKind::CPU);

/// The identity of a model file's bytes ("model:" + 16 hex digits).
std::string modelIdentity(std::string_view bytes);

/// Where release mode finds its model for `target`: the model `sptune-learn
/// adapt` made for this machine (sptune/CostModel/AdaptedModel.h), else
/// "embedded <target>-default.pt" when its bytes are compiled in, else the
/// source-tree file's path (defaultModelPath) when it exists; nullopt when
/// no release model is shipped for `target`.
std::optional<std::string> releaseModelSource(TargetKind target);

/// The bytes of the model shipped for `target` (embedded, else the source
/// tree's file), whatever this machine has adapted; `what` names it. What
/// `sptune-learn adapt` starts from.
llvm::Expected<std::string> shippedModelBytes(TargetKind target,
                                              std::string &what);

/// The identity (CostModel::identity) of the model `createCostModel(mode,
/// path, ..., {.target = target})` would load, without loading it: reads and
/// hashes the file (or `target`'s release model). Fails when the file cannot
/// be read, is no model file, or release mode has no model for `target`.
llvm::Expected<std::string>
costModelIdentity(CostModelMode mode, const std::string &path,
                  TargetKind target = TargetKind::CPU);

/// Whether this build has the learned modes: always, since they score
/// without LibTorch (kept for callers written when they needed it).
bool haveLearnedCostModels();

/// Creates a cost model:
///  - heuristic: `path` must be empty;
///  - release: loads `path`, or when it is empty the release model shipped
///    for `options.target` (embedded, else defaultModelPath(target); an
///    error naming the target when none is shipped);
///  - development: loads `path` (required) and logs to `options.logPath`.
/// Fails saying which of these went wrong.
llvm::Expected<std::unique_ptr<CostModel>>
createCostModel(CostModelMode mode, const std::string &path,
                const CostModelOptions &options = {});

} // namespace sptune

#endif // SPTUNE_COSTMODEL_COSTMODEL_H
