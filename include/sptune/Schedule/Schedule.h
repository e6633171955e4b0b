//===- Schedule.h - The sparse format + loop schedule value -----*- C++ -*-===//
//
// Part of sptune. `Schedule` is the one representation of "how to run this
// sparse kernel" that flows end to end: enumerated by a target's schedule
// space, encoded for the cost model, printed as #sptune.schedule, applied by
// sptune-apply-schedule and measured by a target's measurer. It is a plain C++
// value (no MLIR, no torch), in the spirit of WACO's SuperSchedule: the sparse
// format and the loop schedule chosen together.
//
// Roles are canonical: the sparse operand is A(i,k) for SpMM/SpMV and S(i,j)
// for SDDMM; the "free" loop is the dense loop the sparse operand does not
// index (j for SpMM, k for SDDMM, none for SpMV). A role split by a block size
// b > 1 becomes two parts: outer `i1` = i / b and inner `i0` = i mod b.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_SCHEDULE_SCHEDULE_H
#define SPTUNE_SCHEDULE_SCHEDULE_H

#include "sptune/Schedule/KernelTypes.h"
#include "sptune/Schedule/TargetKnobs.h"
#include "sptune/Schedule/Vocabulary.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sptune {

/// MLIR level types sptune uses (`compressed_nu` = compressed(nonunique)).
enum class LevelFormat : uint8_t { Dense, Compressed, CompressedNU, Singleton };

const char *toString(LevelFormat);

/// A loop, or a storage level's dimension: a role, possibly one of its parts.
struct DimPart {
  Role role = Role::I;
  Part part = Part::Whole;
  bool operator==(const DimPart &o) const {
    return role == o.role && part == o.part;
  }
  bool operator!=(const DimPart &o) const { return !(*this == o); }
  /// "i", "i1" (outer), "i0" (inner).
  std::string str() const;
  /// The inverse of str(), or nullopt.
  static std::optional<DimPart> parse(std::string_view s);
};

struct StorageLevel {
  DimPart dim;
  LevelFormat format = LevelFormat::Dense;
  bool operator==(const StorageLevel &o) const {
    return dim == o.dim && format == o.format;
  }
};

struct Schedule {
  TargetKind target = TargetKind::CPU;
  KernelType kernel = kDefaultKernelType;
  /// Block sizes of the sparse operand's row and column roles (1 = no split).
  int64_t splitRow = 1;
  int64_t splitCol = 1;
  /// Storage levels of the sparse operand, outermost first.
  std::vector<StorageLevel> levels;
  /// All loops of the kernel, outermost first.
  std::vector<DimPart> loopOrder;
  /// Position / coordinate bit widths: 32 or 64.
  int posWidth = 64;
  int crdWidth = 64;
  /// Strip-mining size of the free dense loop (0 = none).
  int64_t tile = 0;
  /// Dense operand layouts: bit n set = dense operand n
  /// (denseOperands(kernel)[n]) is stored with its `outer` role contiguous
  /// (transposed) instead of its `inner` one. sptune-apply-schedule
  /// transposes the operand inside the kernel's function (timed like the
  /// kernel), or elides a transposition the IR already makes. Only on
  /// targets whose knobs say so (TargetKnobs::hasDenseLayouts: the CPU).
  uint8_t denseTransposed = 0;
  /// The target's own knobs (sptune/Schedule/TargetKnobs.h): null means
  /// all at their defaults. Read and written through `knobs<T>()`.
  std::shared_ptr<KnobValues> knobBlock;

  /// The knob struct `T` of this schedule's target (CpuKnobs, ...): its
  /// defaults when the schedule sets none or holds another target's.
  template <typename T> const T &knobs() const {
    if (knobBlock && knobBlock->typeId() == &T::ID)
      return static_cast<const T &>(*knobBlock);
    static const T defaults;
    return defaults;
  }
  /// The same, writable: the block is created (or copied, when other
  /// schedules share it) first.
  template <typename T> T &knobs() {
    if (!knobBlock || knobBlock->typeId() != &T::ID)
      knobBlock = std::make_shared<T>();
    else if (knobBlock.use_count() > 1)
      knobBlock = knobBlock->clone();
    return static_cast<T &>(*knobBlock);
  }

  /// Canonical roles of the kernel (sptune/Schedule/KernelTypes.h).
  static Role rowRole(KernelType k) { return kernelTypeInfo(k).row; }
  static Role colRole(KernelType k) { return kernelTypeInfo(k).col; }
  static std::optional<Role> freeRole(KernelType k) {
    return kernelTypeInfo(k).free;
  }
  /// The size of `k`'s free dense loop when `free` is asked for: `free`, or
  /// 1 for a kernel without one (SpMV).
  static int64_t freeLoopSize(KernelType k, int64_t free) {
    return freeRole(k) ? free : 1;
  }
  /// The role whose loop is a reduction, if any.
  static std::optional<Role> reductionRole(KernelType k) {
    return kernelTypeInfo(k).reduction;
  }

  /// The dense operands whose layout a schedule chooses.
  static const std::vector<DenseOperandInfo> &denseOperands(KernelType k) {
    return kernelTypeInfo(k).denseOperands;
  }
  bool isDenseTransposed(unsigned operand) const {
    return (denseTransposed >> operand) & 1u;
  }
  /// The contiguous role of dense operand `operand` under this schedule.
  Role contiguousRole(unsigned operand) const;

  Role rowRole() const { return rowRole(kernel); }
  Role colRole() const { return colRole(kernel); }
  std::optional<Role> freeRole() const { return freeRole(kernel); }
  int64_t splitOf(Role r) const;

  /// Named starting points: CSR with the natural loop order and no knobs.
  static Schedule csr(TargetKind t, KernelType k);
  static Schedule csc(TargetKind t, KernelType k);
  static Schedule dcsr(TargetKind t, KernelType k);
  static Schedule coo(TargetKind t, KernelType k);
  /// Block-sparse rows: blocks of br x bc, block coordinates dense/compressed,
  /// dense blocks.
  static Schedule bsr(TargetKind t, KernelType k, int64_t br, int64_t bc);

  /// Replaces the level order; the loop order becomes the level order with
  /// the free loop innermost.
  void setLevels(std::vector<StorageLevel> newLevels);

  /// The printed form, e.g.
  ///   cpu spmm, levels = [i : dense, k : compressed], split = [1, 1],
  ///   order = [i, k, j], widths = [64, 64], tile = 0, parallel = none, ...
  /// (the target's knobs after `tile`, printed by its TargetKnobs; levels,
  /// order and widths only on targets with storage levels)
  /// with `layout = [a : k, b : k]` after the widths when a dense operand
  /// is not in its natural layout.
  std::string str() const;

  bool operator==(const Schedule &o) const;
  bool operator!=(const Schedule &o) const { return !(*this == o); }
  size_t hash() const;
};

/// Why `s` is illegal, or an empty string when it is legal. The single place
/// that knows which schedules sptune can compile: structural rules and the
/// combinations that crash MLIR's sparsifier (release builds have no
/// assertions), each with its reason.
std::string whyIllegal(const Schedule &s);
inline bool isLegal(const Schedule &s) { return whyIllegal(s).empty(); }

/// Why `s` cannot be applied to a sparse operand whose dimensions are in
/// canonical order (`transposed` = false: A(i,k), S(i,j)) or swapped (the
/// sparse operand on the right of a product, stored as A(k,i)). `whyIllegal`
/// checks the canonical orientation.
std::string whyIllegalForOrientation(const Schedule &s, bool transposed);

/// For an SDDMM whose output is sparse and shares the sampling pattern:
/// why MLIR's sparsifier would not compute it correctly with `s`'s loop
/// order, or empty. `inPlace`: the output is the sampling matrix itself (the
/// "spy" form), else a separate tensor. Reproduced with mlir-opt 22.1:
///   - separate output: the reduction k must be innermost, or directly above
///     an innermost non-dense level (access-pattern expansion); elsewhere the
///     result is wrong or the code crashes;
///   - in place: k innermost drops the sampled values (S + AB comes out as
///     AB); k outermost or directly above an innermost non-dense level works.
std::string whyIllegalForSparseOutput(const Schedule &s, bool inPlace);

/// For a schedule that hands the kernel to a library (cuSPARSE on NVVM): why
/// the library cannot compute it, or empty. Its sampled product is the
/// in-place form only (`sampledInPlace`: S = S + spy(S) * (A B), what
/// upstream's cuSPARSE rewrite matches); an SDDMM into a separate output,
/// sparse or dense, failed when lowered.
std::string whyIllegalForLibraryKernel(const Schedule &s, bool sampledInPlace);

/// Why `s` cannot run on a rows x cols sparse operand with `nnz` stored
/// entries, or empty: block sizes must divide the dimensions they split and be
/// smaller than them (MLIR folds a one-position outer level away; a negative
/// size is unknown and not checked), and (when nnz > 0) the storage may not blow up — dense levels under sparse ones
/// store explicit zeros; at most 32 * nnz + 2^20 values are allowed.
std::string whyIllegalForShape(const Schedule &s, int64_t rows, int64_t cols,
                               int64_t nnz = 0);

/// Upper bound on the entries of the largest storage level of `s` for a
/// rows x cols operand with nnz entries (explicit zeros of dense levels and
/// the positions of compressed levels under dense ones included).
double estimateStoredValues(const Schedule &s, int64_t rows, int64_t cols,
                            int64_t nnz);

/// The canonical representative of `s`'s equivalence class: the target's
/// knobs that have no effect are reset (e.g. thread count when nothing runs
/// in parallel; TargetKnobs::canonicalize), as are dense layouts on targets
/// without them and another target's knob block, so equivalent schedules
/// compare equal.
Schedule canonicalize(const Schedule &s);

/// Parses the printed form; the error says where it stops making sense.
/// (`llvm::expectedToOptional(parseSchedule(text))` when the reason does not
/// matter.)
llvm::Expected<Schedule> parseSchedule(std::string_view text);

struct ScheduleHash {
  size_t operator()(const Schedule &s) const { return s.hash(); }
};

} // namespace sptune

#endif // SPTUNE_SCHEDULE_SCHEDULE_H
