//===- ConfigurationMapper.h - Schedules into model features ----*- C++ -*-===//
//
// Part of sptune. COGNATE's configuration mapper: every schedule, whatever its
// target, is mapped into one common feature space (the format and loop
// schedule every target shares: splits as log2, the loop order as a
// permutation matrix over a fixed vocabulary of loop names, per-level formats,
// widths, tile, degree of parallelism, vector length, plus the problem: kernel
// and free size). What only one target has (OpenMP schedule and chunk on the
// CPU, cuSPARSE on NVVM, an accelerator's cache bypassing) goes into a
// per-target knob vector, which the model compresses with that target's
// autoencoder into a fixed-size latent code. The knob vector is defined by
// the target (its KnobEncoding, sptune/Target/KnobEncoding.h) and found
// through the target registry: targets must be registered before the model
// is used (sptune::registerAllTargets()). The common space and the
// predictor keep their shape whatever the knobs.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_CONFIGURATIONMAPPER_H
#define SPTUNE_COSTMODEL_CONFIGURATIONMAPPER_H

#include "sptune/Schedule/Schedule.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sptune {

/// All targets, in the order the model keeps their autoencoders.
constexpr std::array<TargetKind, 3> kAllTargets = {
    TargetKind::CPU, TargetKind::NVVM, TargetKind::SPADE};

/// A schedule in model coordinates.
struct MappedSchedule {
  TargetKind target = TargetKind::CPU;
  /// `commonFeatureSize()` values, the same layout for every target.
  std::vector<float> common;
  /// `knobFeatureSize(target)` values.
  std::vector<float> knobs;
};

/// Fixed vocabulary of loop names: i, i1, i0, j, j1, j0, k, k1, k0.
constexpr int kLoopVocabulary = 9;
/// Most loops a kernel has (two split roles and the free loop).
constexpr int kMaxLoops = 5;

/// Width of `MappedSchedule::common`.
int commonFeatureSize();
/// Names of the common features, in order.
const std::vector<std::string> &commonFeatureNames();
/// Width of `MappedSchedule::knobs` for `target`.
int knobFeatureSize(TargetKind target);
/// Names of `target`'s knob features, in order.
const std::vector<std::string> &knobFeatureNames(TargetKind target);

/// Index of a loop name in the vocabulary.
int loopVocabularyIndex(DimPart d);

/// Maps `schedule` (canonicalized first, so equivalent schedules map to equal
/// vectors; distinct canonical legal schedules map to distinct vectors) for a
/// problem whose free dense loop has `free` iterations (0 = unknown).
MappedSchedule mapSchedule(const Schedule &schedule, int64_t free);

/// Writes the common features of an already canonical `schedule` to `out`
/// (`commonFeatureSize()` floats) and its knob features to `knobs`
/// (`knobFeatureSize(schedule.target)` floats). The allocation-free core of
/// `mapSchedule`, for batches.
void mapCanonicalSchedule(const Schedule &schedule, int64_t free, float *out,
                          float *knobs);

/// `count` canonical CSR schedules of `target`/`kernel` whose target knobs
/// are drawn uniformly from their legal domains, deterministically for a
/// seed: the default pre-training set of a target's autoencoder when no
/// schedule space is at hand.
std::vector<Schedule> sampleKnobSettings(TargetKind target, KernelType kernel,
                                         size_t count, uint64_t seed);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_CONFIGURATIONMAPPER_H
