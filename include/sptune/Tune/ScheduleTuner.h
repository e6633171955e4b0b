//===- ScheduleTuner.h - Pick a schedule for a matrix -----------*- C++ -*-===//
//
// Part of sptune. The decision behind `sptune-autotune`, as plain C++: draw
// candidates from the registered target's schedule space (plus its heuristic
// and its untuned reference), rank them with the cost model, optionally
// measure the top k through a CandidateMeasurer and keep the fastest. When it
// measures, it measures the heuristic schedule too (unless the model already
// put it in the top k): a measured choice is never slower than sptune's
// model-free default. When it does not, a model with a guard keeps the
// heuristic unless it is sure enough that its pick is faster.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TUNE_SCHEDULETUNER_H
#define SPTUNE_TUNE_SCHEDULETUNER_H

#include "sptune/CostModel/CostModel.h"
#include "sptune/Target/Measurer.h"
#include "sptune/Tune/CandidateMeasurer.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

class Target;

struct TuneOptions {
  /// The registered target to tune for (sptune/Target/Target.h).
  TargetKind target = TargetKind::CPU;
  /// `target`'s registration when the caller has looked it up already
  /// (sptune-autotune's KernelTuningContext); null: looked up here.
  const Target *targetInfo = nullptr;
  /// Candidates drawn from the target's space (its heuristic and reference
  /// schedules are always added).
  size_t candidates = 1000;
  /// Knob settings of the heuristic's storage and loop order added to the
  /// candidates (its neighbourhood).
  size_t neighbours = 200;
  uint64_t seed = 1;
  /// How many of the best-ranked candidates to report.
  size_t topK = 5;
  /// Measure this many of the best-ranked candidates and keep the fastest
  /// (0 = trust the model). Needs `measurer`.
  size_t measureTopK = 0;
  /// When measuring, also measure the heuristic schedule if it is not among
  /// the measured top k.
  bool measureHeuristic = true;
  /// For measuring: the matrix source the measurer loads, and its options.
  std::string matrixSource;
  MeasureOptions measure;
  /// For measuring: the tuned op's element width (32 or 64) and, for SDDMM,
  /// whether it reads B as the transpose of a B^T input. The measured kernel
  /// is the user's: an f64 op is not timed in f32.
  int elementBits = 32;
  bool transposedB = false;
  /// For measuring: the op itself, as the matcher describes it; measured as
  /// written where the target's measurer can (KernelSpec::descriptor).
  std::optional<KernelDescriptor> descriptor;
  /// Runs the measurements (not owned; e.g. a WorkerCandidateMeasurer).
  CandidateMeasurer *measurer = nullptr;
  /// Let the model's guard keep the heuristic when the model is not sure
  /// its pick is faster (sptune/CostModel/ModelGuard.h; a model without a
  /// guard decides alone either way).
  bool useModelGuard = true;
  /// Drop candidates that do not fit the machine this process runs on
  /// (ScheduleSpace::fitsThisMachine: more threads than it may run).
  /// Collection turns it off: measuring a model's unfit favourites is how
  /// it learns what they cost.
  bool onlyThisMachine = true;
  /// Set the knobs the model cannot see by the target's rule on every
  /// candidate but the heuristic and the reference
  /// (Target::withUnseenKnobsByRule). Collection turns it off: it measures
  /// what the model scored.
  bool unseenKnobsByRule = true;
  /// Extra legality for the kernel form being tuned (e.g. the rules of an
  /// in-place SDDMM); empty string = applicable.
  std::function<std::string(const Schedule &)> applicable;
  /// The matrix's features when the caller has them already (they must be
  /// featurize(m)'s); null: computed here.
  const MatrixFeatures *features = nullptr;
};

struct RankedCandidate {
  Schedule schedule;
  double score = 0;
  /// Measured median seconds (when measured and it ran correctly).
  std::optional<double> seconds;
  std::string measureStatus; ///< "ok", or why the measurement failed
  /// 1-based position in the model's ranking.
  size_t rank = 0;
  /// The heuristic, measured as a guard outside the model's top k.
  bool guard = false;
};

struct TuneResult {
  Schedule chosen;
  /// The best-ranked candidates, best first (topK of them, or all measured),
  /// then the guard when there is one.
  std::vector<RankedCandidate> top;
  size_t numCandidates = 0;
  double rankSeconds = 0;
  bool measured = false;
  /// The model could not serve the target (e.g. the CPU release model asked
  /// about NVVM): ranked by the heuristic instead, for this reason.
  std::string fallbackReason;
  /// The model's guard on its pick over the heuristic, when the model has a
  /// guard and picked another schedule; not trusted: the heuristic was put
  /// first (and is `chosen` unless measuring found a faster one).
  std::optional<GuardVerdict> modelGuard;
  bool keptHeuristic() const { return modelGuard && !modelGuard->trusted(); }
};

/// Tunes `kernel` on the matrix `m` (rows x cols in canonical roles) with
/// free size `free` for `options.target`, which must be registered. When the
/// model was not trained for the target, ranks with the heuristic and says
/// so in `fallbackReason`. Fails when the target is unknown, no candidate
/// applies, the model fails to rank, or measuring was asked without a
/// measurer.
llvm::Expected<TuneResult> tuneSchedule(const CostModel &model,
                                        const CsrMatrix &m, KernelType kernel,
                                        int64_t free,
                                        const TuneOptions &options);

} // namespace sptune

#endif // SPTUNE_TUNE_SCHEDULETUNER_H
