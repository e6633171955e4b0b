//===- KnobEncoding.h - A target's knobs as cost model features -*- C++ -*-===//
//
// Part of sptune. COGNATE's configuration mapper keeps one feature space for
// what every target's schedules share (format, loop order, splits, ...) and
// one knob vector per target for what only that target has (OpenMP schedule
// and chunk on the CPU, cuSPARSE on NVVM, an accelerator's cache bypassing),
// which
// the model compresses with that target's autoencoder. The knob vector is
// the target's to define: each target implements this interface in its own
// folder and returns it from `Target::knobEncoding()`; the cost model's
// ConfigurationMapper asks the registry for it and knows no target.
//
// Plain C++; the layout of a built-in target's vector is part of the shipped
// model's feature specification (its names are hashed into the model file),
// so changing it means retraining.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGET_KNOBENCODING_H
#define SPTUNE_TARGET_KNOBENCODING_H

#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Schedule/Schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sptune {

/// A schedule's parallelism and vectorization in target-neutral terms, for
/// the common feature space.
struct ParallelismFeatures {
  float parallel = 0;    ///< 1 when the kernel runs on several workers
  float log2Workers = 0; ///< knobLog2(workers, 11); 0 = all of the machine
  float allWorkers = 0;  ///< 1 when "all of the machine" is asked for
  float log2Vector = 0;  ///< log2(vector length) / 4
  float vectorized = 0;  ///< 1 when vectorized
};

/// A row-wise (Gustavson) sparse x sparse product's algorithmic choices in
/// target-neutral terms, for the common feature space of a model built for
/// SpGEMM: every row-wise product picks a workspace for a row's partial sums
/// and whether it sizes the output first (a symbolic pass) or grows it; a
/// target that computes the product makes these choices with knobs of its
/// own. All zero for other kernels.
struct SpgemmFeatures {
  float hashAccumulator = 0; ///< 1 for a hash-table workspace
  float accumulatorAuto = 0; ///< 1 when the lowering picks the workspace
  float twoPasses = 0;       ///< 1 for a symbolic pass before the numeric one
  float passesAuto = 0;      ///< 1 when the lowering picks the pass count
};

/// An MTTKRP's form in target-neutral terms, for the common feature space
/// of a model built for MTTKRP: factored (sum each fiber over l, then scale
/// by C's row once) or entry-wise (one multiply-add per entry and rank
/// column); neither when the lowering picks at run time. All zero for other
/// kernels.
struct MttkrpFeatures {
  float factored = 0;
  float entryWise = 0;
};

/// log2(1 + x) scaled by 1 / scaleBits: about [0, 1] for x up to
/// 2^scaleBits (negative x counts as 0).
inline float knobLog2(int64_t x, float scaleBits) {
  return static_cast<float>(
             std::log2(1.0 + static_cast<double>(std::max<int64_t>(x, 0)))) /
         scaleBits;
}

/// The random draws of `KnobEncoding::sampleKnobs`: one generator per call,
/// seeded from the call's seed.
class KnobSampler {
public:
  explicit KnobSampler(uint64_t seed)
      : rng(seed * 0x9E3779B97F4A7C15ull + 0x5eed) {}
  /// Uniform in [0, n).
  size_t pick(size_t n) { return static_cast<size_t>(rng() % n); }
  bool coin() { return (rng() & 1) != 0; }

private:
  std::mt19937_64 rng;
};

class KnobEncoding {
public:
  virtual ~KnobEncoding();

  /// Names of the knob features, in order; their count is the vector's
  /// width (0 for a target without knobs of its own).
  virtual const std::vector<std::string> &featureNames() const = 0;

  /// Writes featureNames().size() features of the canonical schedule `s`.
  virtual void encode(const Schedule &s, float *features) const = 0;

  /// `s`'s parallelism and vectorization for the common feature space.
  virtual ParallelismFeatures parallelism(const Schedule &s) const = 0;

  /// `s`'s SpGEMM choices for the common feature space (a kernel of
  /// another type, or a target that does not compute sparse x sparse
  /// products: all zero).
  virtual SpgemmFeatures spgemm(const Schedule &s) const { return {}; }
  /// `s`'s MTTKRP form for the common feature space (another kernel type,
  /// or a target without an MTTKRP kernel of its own: all zero).
  virtual MttkrpFeatures mttkrp(const Schedule &s) const { return {}; }
  /// 1 when `s` visits the sparse operand's rows in another order than
  /// storage order (the CPU's `reorder = rcm`, SPADE's `reorder`), else 0:
  /// the common feature `rows_reordered` of a model built with the shared
  /// knob "row-order" (FeatureLayout), through which a model pre-trained on
  /// one target's reordering data can say something of another's.
  virtual float rowOrder(const Schedule &s) const { return 0; }
  /// The model-free cost estimate's view of the knobs (heuristic mode ranks
  /// candidates by sptune::analyticalCost): `work`, estimated from the
  /// shared part of `s` for a matrix with `stats` and a free loop of
  /// `freeSize` iterations (1 without one), scaled by what the knobs do to
  /// it. The default: unchanged.
  virtual double scaleAnalyticalWork(const Schedule &s, double work,
                                     const MatrixStats &stats,
                                     double freeSize) const {
    return work;
  }

  /// `count` canonical CSR schedules of `kernel` whose knobs are drawn
  /// uniformly from their legal domains, deterministically for `seed`: the
  /// pre-training set of the target's autoencoder.
  virtual std::vector<Schedule> sampleKnobs(KernelType kernel, size_t count,
                                            uint64_t seed) const = 0;
};

} // namespace sptune

#endif // SPTUNE_TARGET_KNOBENCODING_H
