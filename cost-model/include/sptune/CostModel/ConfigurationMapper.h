//===- ConfigurationMapper.h - Schedules into model features ----*- C++ -*-===//
//
// Part of sptune. COGNATE's configuration mapper: every schedule, whatever its
// target, is mapped into one common feature space (the format and loop schedule
// every target shares: splits as log2, the loop order as a permutation matrix
// over a fixed vocabulary of loop names, per-level formats, widths, tile,
// degree of parallelism, vector length, plus the problem: target, kernel and
// free size). What only one target has (OpenMP schedule and chunk on the CPU,
// cuSPARSE on NVVM, an accelerator's cache bypassing) goes into a per-target
// knob vector, which the model compresses with that target's autoencoder into a
// fixed-size latent code. The knob vector is defined by the target (its
// KnobEncoding, sptune/Target/KnobEncoding.h) and found through the target
// registry: targets must be registered before the model is used
// (sptune::registerAllTargets()). The common space and the predictor keep their
// shape whatever the knobs; which targets a model has slots for is its
// FeatureLayout.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_CONFIGURATIONMAPPER_H
#define SPTUNE_COSTMODEL_CONFIGURATIONMAPPER_H

#include "sptune/Schedule/Schedule.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sptune {

class KnobEncoding;

/// A schedule in model coordinates.
struct MappedSchedule {
  TargetKind target = TargetKind::CPU;
  /// `FeatureLayout::commonSize()` values, the same layout for every target.
  std::vector<float> common;
  /// `knobFeatureSize(target)` values.
  std::vector<float> knobs;
};

/// Whether a model can be built for `k`: SpMM, SDDMM, SpMV, SpGEMM, MTTKRP
/// and the batched SpMM (whose 3-D tensors the model sees through
/// featurizeTensor: a batched SpMM's slices are its batches, its fibers its
/// rows). A
/// model's FeatureLayout lists the kernels it has a one-hot position for; a
/// kernel type added at run time (sptune/Schedule/KernelTypes.h) and the
/// Hadamard product have no features, so no model ranks their schedules
/// (CostModel::supportsKernel).
inline bool hasKernelFeature(KernelType k) {
  return k == KernelType::SpMM || k == KernelType::SDDMM ||
         k == KernelType::SpMV || k == KernelType::SpGEMM ||
         k == KernelType::MTTKRP || k == KernelType::BatchedSpMM;
}

/// The kernels of a model file that lists none (every model before SpGEMM
/// got features): spmm, sddmm and spmv, the default of a new model.
const std::vector<std::string> &defaultModelKernels();

/// The kernels of a new model for samples of `kernels`: the default three,
/// then SpGEMM when `kernels` has it. Data of the default kernels only give
/// a model the shape of every model before SpGEMM.
std::vector<std::string>
modelKernelsFor(const std::vector<KernelType> &kernels);

/// The knobs a layout may share between targets (FeatureLayout::of):
/// "row-order" (KnobEncoding::rowOrder).
const std::vector<std::string> &sharedKnobNames();

/// Fixed vocabulary of loop names: i, i1, i0, j, j1, j0, k, k1, k0.
constexpr int kLoopVocabulary = 9;
/// Most loops a kernel has (two split roles and the free loop).
constexpr int kMaxLoops = 5;

/// Width of `target`'s knob vector (0 for a target without knobs of its own).
int knobFeatureSize(TargetKind target);
/// Names of `target`'s knob features, in order.
const std::vector<std::string> &knobFeatureNames(TargetKind target);

/// Index of a loop name in the vocabulary.
int loopVocabularyIndex(DimPart d);

/// The targets a model is built for, by registered name, in the order it
/// keeps their knob autoencoders: each has a slot, a one-hot position in the
/// common features and its own knob vector. A model file records its list,
/// so a model keeps its shape whatever targets a later build registers, and
/// a target registered after the built-in ones (a plug-in) gets a slot in
/// the models created once it is registered.
///
/// Likewise the kernels it is built for: each has a one-hot position, and
/// SpGEMM adds its algorithmic choices (SpgemmFeatures) at the end of the
/// common features, MTTKRP its form (MttkrpFeatures) after them. A layout
/// without either has the common features of every model before them, so
/// those models keep their shape.
class FeatureLayout {
public:
  /// Every registered target, in registration order: the layout of a new
  /// model.
  static FeatureLayout ofRegisteredTargets();
  /// The layout of targets `names` and kernels `kernels`; fails for an
  /// empty list, a repeated name, a name no registered target has or a
  /// kernel no model can be built for (hasKernelFeature).
  /// `sharedKnobs`: knobs of several targets that the common vector
  /// represents alike (sharedKnobNames(); none by default, so that models
  /// built without them keep their layout); fails for an unknown or
  /// repeated one.
  static llvm::Expected<FeatureLayout>
  of(const std::vector<std::string> &names,
     const std::vector<std::string> &kernels = defaultModelKernels(),
     const std::vector<std::string> &sharedKnobs = {});

  const std::vector<std::string> &targetNames() const { return names; }
  const std::vector<TargetKind> &targets() const { return kinds; }
  size_t numTargets() const { return kinds.size(); }
  /// The slot of `target`, or nullopt when the layout lacks it.
  std::optional<size_t> slotOf(TargetKind target) const;
  TargetKind targetAt(size_t slot) const { return kinds[slot]; }
  /// Width of its knob vector.
  int knobSize(size_t slot) const { return knobSizes[slot]; }
  /// The target names joined by ", ".
  std::string str() const;

  /// The kernels, by name, in the order of their one-hot positions.
  const std::vector<std::string> &kernelNames() const { return kernelNames_; }
  /// The kernels, in the same order (never empty).
  const std::vector<KernelType> &kernelTypes() const { return kernels; }
  /// Whether the layout has a one-hot position for `kernel`.
  bool hasKernel(KernelType kernel) const;
  /// The kernel names joined by ", ".
  std::string kernelsStr() const;

  /// The shared knobs of the layout (see `of`), in the order given.
  const std::vector<std::string> &sharedKnobs() const { return shared_; }

  /// Width of `MappedSchedule::common`.
  int commonSize() const { return static_cast<int>(common.size()); }
  /// Names of the common features, in order.
  const std::vector<std::string> &commonNames() const { return common; }

  /// Maps `schedule` (canonicalized first, so equivalent schedules map to
  /// equal vectors; distinct canonical legal schedules map to distinct
  /// vectors) for a problem whose free dense loop has `free` iterations
  /// (0 = unknown). `schedule.target` must have a slot.
  MappedSchedule map(const Schedule &schedule, int64_t free) const;
  /// Writes the common features of an already canonical `schedule` to `out`
  /// (`commonSize()` floats) and its knob features to `knobs`
  /// (`knobFeatureSize(schedule.target)` floats). The allocation-free core of
  /// `map`, for batches.
  void mapCanonical(const Schedule &schedule, int64_t free, float *out,
                    float *knobs) const;

  friend bool operator==(const FeatureLayout &a, const FeatureLayout &b) {
    return a.names == b.names;
  }

private:
  FeatureLayout() = default;
  std::vector<std::string> names;
  std::vector<TargetKind> kinds;
  std::vector<const KnobEncoding *> encodings;
  std::vector<int> knobSizes;
  std::vector<std::string> kernelNames_;
  std::vector<KernelType> kernels;
  /// Offset of the SpGEMM features in the common vector (0: none).
  int spgemmOffset = 0;
  /// Offset of the MTTKRP features in the common vector (0: none).
  int mttkrpOffset = 0;
  std::vector<std::string> shared_;
  /// Offset of the `rows_reordered` feature (shared knob "row-order"; 0:
  /// none).
  int rowOrderOffset = 0;
  std::vector<std::string> common;
};

/// `count` canonical CSR schedules of `target`/`kernel` whose target knobs
/// are drawn uniformly from their legal domains, deterministically for a
/// seed: the default pre-training set of a target's autoencoder when no
/// schedule space is at hand.
std::vector<Schedule> sampleKnobSettings(TargetKind target, KernelType kernel,
                                         size_t count, uint64_t seed);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_CONFIGURATIONMAPPER_H
