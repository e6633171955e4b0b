//===- Multiversion.h - Schedules for matrices not known yet ----*- C++ -*-===//
//
// Part of sptune. When a kernel is compiled before its matrix is known,
// `sptune-autotune{multiversion=K}` emits K variants of it and a dispatcher
// that picks one at run time. This is the decision behind it, as plain C++:
//
//   1. the cost model ranks each matrix of a training distribution; the best
//      few schedules of every matrix that run on any matrix (no block split,
//      no dense level under a sparse one) form a common pool, which the model
//      scores on every matrix;
//   2. K of them are chosen greedily to cover the distribution: each step
//      adds the schedule that most raises the sum over matrices of the best
//      predicted score among those chosen;
//   3. a depth-limited decision tree over features the dispatcher computes in
//      O(rows) from the positions (DispatchFeatures) routes a matrix to a
//      variant; it is fitted to the model's scores (each leaf takes the
//      variant with the best total predicted score of its matrices, each split
//      the one that raises that total most), not to labels, so a split that
//      separates near-ties costs nothing.
//
// The tree's comparisons do not depend on a monotone rescaling of a feature,
// so it splits raw values; thresholds are geometric midpoints for positive
// values.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TUNE_MULTIVERSION_H
#define SPTUNE_TUNE_MULTIVERSION_H

#include "sptune/CostModel/CostModel.h"
#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Schedule/Schedule.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sptune {

class Target;

/// What the dispatcher knows of the matrix it is called with: dimensions,
/// stored entries and row-length statistics, computed from the sparse
/// operand's positions in one pass over its rows.
struct DispatchFeatures {
  enum Index : unsigned { Rows, Cols, Nnz, RowMean, RowCv, RowMax, Count };
  std::array<double, Count> values{};
  double operator[](unsigned i) const { return values[i]; }
  /// "rows", "cols", "nnz", "row_mean", "row_cv" (standard deviation of
  /// the row lengths over their mean), "row_max".
  static const char *name(unsigned feature);
};

/// The features of `m` exactly as the emitted dispatcher computes them (a
/// matrix without rows or entries has mean and cv 0).
DispatchFeatures dispatchFeatures(const CsrMatrix &m);

/// A binary decision tree over DispatchFeatures whose leaves name variants.
struct DispatchRule {
  struct Node {
    /// The feature compared (a DispatchFeatures::Index), or -1 for a leaf.
    int feature = -1;
    /// Go left when the feature is <= threshold.
    double threshold = 0;
    int left = -1, right = -1;
    /// A leaf's variant.
    unsigned variant = 0;
  };
  /// Node 0 is the root.
  std::vector<Node> nodes;

  /// The variant the rule picks for `f`.
  unsigned route(const DispatchFeatures &f) const;
  /// Whether any split reads the row lengths (row_cv, row_max): only then
  /// does the dispatcher loop over the rows.
  bool readsRowLengths() const;
  /// One line, e.g. "row_mean <= 6.5 ? (nnz <= 1e+05 ? v0 : v2) : v1".
  std::string str() const;
  /// Leaves of the tree.
  size_t numLeaves() const;
};

struct MultiversionOptions {
  /// Number of variants (>= 1).
  unsigned variants = 4;
  /// Depth of the dispatch tree (0: always the first variant).
  unsigned maxDepth = 3;
  /// Fewest training matrices in a leaf.
  unsigned minLeaf = 2;
  /// The best this many schedules of every training matrix join the pool.
  unsigned perMatrixTop = 8;
  /// Candidates ranked per training matrix, and their seed.
  size_t candidates = 1000;
  uint64_t seed = 1;
  /// Let the model's guard (sptune/CostModel/ModelGuard.h) judge its pick
  /// for each training matrix, as tuning for one matrix does: where it keeps
  /// the heuristic, the heuristic's schedule counts as that matrix's best
  /// (its score is raised to just above the model's best).
  bool useModelGuard = true;
  /// Extra legality for the op being compiled (e.g. an in-place SDDMM's
  /// loop orders); empty string = applicable.
  std::function<std::string(const Schedule &)> applicable;
};

struct MultiversionPlan {
  /// Variant n's schedule, in the order the cover chose them (the first
  /// chosen is the best single schedule for the whole distribution); those
  /// the rule routes no matrix to are left out, so there may be fewer than
  /// asked for.
  std::vector<Schedule> variants;
  DispatchRule rule;
  /// Training matrices, schedules scored on each, and how the rule does on
  /// them: the geometric mean of the predicted speedup of the routed
  /// variant over each matrix's best pooled schedule (<= 1), and the same
  /// for the best single schedule alone.
  size_t trainingMatrices = 0;
  size_t pooledSchedules = 0;
  double routedShareOfBest = 0;
  double singleShareOfBest = 0;
  /// Whether the scores are a model's predicted log speedups (the shares
  /// above mean something); the heuristic's scores are 1 for the schedule
  /// it gives a matrix and 0 for the others.
  bool scoresArePredictions = true;
  /// Training matrices the rule routes to their best pooled schedule.
  size_t routedToBest = 0;
  /// Training matrices where the guard kept the heuristic.
  size_t guardKeptHeuristic = 0;
  /// How many training matrices the rule routes to each variant.
  std::vector<size_t> routedCounts;
  /// Why ranking fell back to the heuristic (the model cannot serve the
  /// target or kernel), or "".
  std::string fallbackReason;
};

/// Whether `s` runs on a sparse operand of any shape: no block split (a
/// size must divide the dimension) and no dense level under a sparse one
/// (it stores explicit zeros, unbounded in the matrix's size).
bool runsOnAnyShape(const Schedule &s);

/// Plans `options.variants` variants of a `kernel` with free size `free`
/// for `target`, trained on `matrices` (in the kernel's canonical
/// orientation). Fails when there are no matrices, the model fails, or no
/// schedule that runs on any shape applies.
llvm::Expected<MultiversionPlan>
planMultiversion(const CostModel &model, const Target &target,
                 const std::vector<const CsrMatrix *> &matrices,
                 KernelType kernel, int64_t free,
                 const MultiversionOptions &options);

/// The generator specs of the built-in training distribution: 48 matrices
/// of five structures (uniform, power-law R-MAT, banded, block, clustered),
/// 2,048 to 65,536 rows, 2 to 64 entries per row on average.
std::vector<std::string> defaultDispatchTrainingSpecs();

} // namespace sptune

#endif // SPTUNE_TUNE_MULTIVERSION_H
