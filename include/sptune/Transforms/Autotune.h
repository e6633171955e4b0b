//===- Autotune.h - Choose a kernel's schedule (callable) -------*- C++ -*-===//
//
// Part of sptune. What `sptune-autotune` does to one op, as a function a
// downstream compiler can call from its own pass or pipeline: find the
// kernel's matrix, tune it for a registered target (sptune/Tune), attach the
// winner as #sptune.schedule and explain the choice in a remark.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TRANSFORMS_AUTOTUNE_H
#define SPTUNE_TRANSFORMS_AUTOTUNE_H

#include "sptune/CostModel/CostModel.h"
#include "sptune/IR/SptuneAttrs.h"
#include "sptune/Matrix/SparseMatrix.h"
#include "sptune/Schedule/Schedule.h"
#include "sptune/Tune/CandidateMeasurer.h"
#include "sptune/Tune/TuningDatabase.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <map>
#include <string>

namespace sptune {
class Target;
} // namespace sptune

namespace mlir {
namespace sptune {

struct KernelTuningOptions {
  /// A registered target (sptune/Target/Target.h).
  ::sptune::TargetKind target = ::sptune::TargetKind::CPU;
  /// The matrix of every kernel (.mtx path or gen: spec); empty: each
  /// kernel's `sptune.matrix` argument attribute.
  std::string matrix;
  unsigned topK = 5;
  unsigned measureTopK = 0;
  bool measureHeuristic = true;
  unsigned candidates = 1000;
  unsigned seed = 1;
  /// Free dense size to assume when the kernel's is dynamic.
  int64_t freeSize = 64;
  /// Runs measurements when measureTopK > 0 (not owned).
  ::sptune::CandidateMeasurer *measurer = nullptr;
  /// Tuning decisions to replay and to record to (not owned; null: none).
  ::sptune::TuningDatabase *database = nullptr;
  /// A kernel without a matrix: up to this many variants and a run-time
  /// dispatcher (0: the heuristic schedule), chosen for the matrices of
  /// `trainingMatrices` (trainingMatrixSources, Multiversion.h).
  unsigned multiversion = 0;
  std::string trainingMatrices;
};

/// Matrices loaded by earlier calls (kernels of one module often share
/// one), keyed by source and orientation.
class MatrixCache {
public:
  /// The matrix in canonical orientation (transposed when the sparse operand
  /// is on the right of the product). A source that failed to load fails
  /// again with the same message, without reading it again.
  llvm::Expected<const ::sptune::CsrMatrix *> get(const std::string &source,
                                                  bool transposed);

private:
  struct Entry {
    ::sptune::CsrMatrix csr;
    std::string error;
    bool ok = false;
  };
  std::map<std::string, Entry> entries;
};

/// What the autotune path knows about one kernel, worked out once by
/// resolveKernelTuning and handed along to the database lookup, the ranking
/// and the record: the kernel, the target that runs it (looked up once),
/// its free size, where its matrix comes from and which schedules fit the
/// op. The matrix is read on first use, through the caller's MatrixCache;
/// the options carry the database and the measurer.
class KernelTuningContext {
public:
  linalg::LinalgOp op;
  KernelAttr kernel;
  const ::sptune::Target *target = nullptr;
  ::sptune::KernelType type{}; ///< the kernel's, as its #sptune.kernel says
  /// The free dense size (the option's default when the op's is dynamic;
  /// 1 for SpMV).
  int64_t free = 1;
  /// The matrix source ("" when there is none), where it was named (the
  /// pass option or the argument attribute, for remarks and errors), and
  /// whether the sparse operand is used transposed (the matrix is then
  /// tuned transposed).
  std::string source;
  std::string sourceOrigin;
  bool transposed = false;
  /// What a measurement compiles besides the kernel and free size: the
  /// width of the values it feeds (64 for a 64-bit element type, else 32:
  /// narrower types are timed in f32), and whether it reads SDDMM's B as a
  /// transposed B^T.
  int elementBits = 32;
  bool transposedB = false;
  /// The op as the matcher describes it, measured as written.
  std::optional<::sptune::KernelDescriptor> descriptor;
  /// Why a schedule does not fit the op ("" when it does).
  std::function<std::string(const ::sptune::Schedule &)> applicable;
  const KernelTuningOptions *options = nullptr;

  /// The kernel's matrix, checked against its static shape; null, with an
  /// error on the op, when it cannot be read or does not fit.
  const ::sptune::CsrMatrix *matrix();
  /// The matrices loaded for this pass run (training matrices too).
  MatrixCache &matrixCache() const { return *matrices; }

private:
  friend FailureOr<KernelTuningContext>
  resolveKernelTuning(linalg::LinalgOp, const KernelTuningOptions &,
                      MatrixCache &);
  MatrixCache *matrices = nullptr;
};

/// Why a pass that schedules for `target` leaves `op`, the kernel `kernel`,
/// to the sparsifier as written (the remark's text: "left unscheduled:
/// ..."), or an empty string: its element type or its body is one the
/// target does not tune (Target::whyUnsupportedElementType,
/// Target::whyUnsupportedBody).
std::string whyLeftUnscheduled(linalg::LinalgOp op, KernelAttr kernel,
                               const ::sptune::Target &target);

/// The schedule a pass attaches to `kernel` when nothing is tuned: the
/// target's heuristic for free size `free` (0 = unknown) and the sparse
/// operand's `stats` (null = unknown), or its reference schedule where the
/// heuristic does not fit the op (the in-place SDDMM needs its reduction
/// outermost or above an innermost sparse level), or an error saying why
/// the heuristic does not fit where neither does.
llvm::Expected<::sptune::Schedule>
untunedSchedule(KernelAttr kernel, const ::sptune::Target &target, int64_t free,
                const ::sptune::MatrixStats *stats = nullptr);

/// Resolves `op`'s context; fails with an error on `op` when it carries no
/// #sptune.kernel, the target is not registered or cannot run the kernel,
/// or when the pass option `matrix=` and a `sptune.matrix` attribute on the
/// argument the kernel reads name different matrices. The matrix comes from
/// either (the same one when both are given); docs/tuning-database.md.
FailureOr<KernelTuningContext>
resolveKernelTuning(linalg::LinalgOp op, const KernelTuningOptions &options,
                    MatrixCache &matrices);

/// Ranks (and measures, when asked) the candidates of `kernel`, attaches
/// the winner with a remark that shows the ranking, with `note` appended,
/// and records the decision when the options carry a database. Does not
/// look the kernel up in the database (scheduleFromDatabase does).
LogicalResult tuneKernel(KernelTuningContext &kernel,
                         const ::sptune::CostModel &model,
                         llvm::StringRef note = "");

/// scheduleFromDatabase (below) for a resolved kernel.
FailureOr<bool> scheduleFromDatabase(KernelTuningContext &kernel,
                                     llvm::StringRef modelIdentity);

/// Tunes `op`, which carries #sptune.kernel, and attaches the chosen
/// #sptune.schedule with a remark that shows the ranking. Without a matrix,
/// attaches the target's heuristic schedule and says so. With a database,
/// takes a recorded decision when one answers (scheduleFromDatabase), and
/// records a new one. Emits an error on `op` and fails for a matrix of the
/// wrong shape, an unknown target or a failed ranking.
LogicalResult autotune(linalg::LinalgOp op, const ::sptune::CostModel &model,
                       const KernelTuningOptions &options, MatrixCache &matrices);

/// When `options.database` holds a decision for `op`'s kernel and matrix by
/// the model of identity `modelIdentity` (CostModel::identity), attaches it
/// with a remark that says so and returns true; false when there is none
/// (or no database, or no matrix). The matrix is found by its source's stamp
/// first (nothing read), else read and found by fingerprint. Fails (with an
/// error on `op`) only when the kernel or its matrix is unusable.
FailureOr<bool> scheduleFromDatabase(linalg::LinalgOp op,
                                     llvm::StringRef modelIdentity,
                                     const KernelTuningOptions &options,
                                     MatrixCache &matrices);

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TRANSFORMS_AUTOTUNE_H
