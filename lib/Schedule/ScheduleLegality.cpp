//===- ScheduleLegality.cpp - Which schedules sptune can compile ----------===//
//
// The structural rules of the shared part of a schedule and the
// combinations that crash MLIR's sparsifier; each target adds the rules of
// its own knobs (TargetKnobs::whyIllegal) and of its back end
// (Target::whyIllegal).
//
//===----------------------------------------------------------------------===//

#include "sptune/Schedule/Schedule.h"

#include <algorithm>
#include <string>

using namespace sptune;

/// Whether `s`'s storage levels, loop order and widths mean anything on its
/// target (they do on targets without registered knobs: MLIR's levels).
static bool hasStorageLevels(const Schedule &s) {
  const TargetKnobs *knobs = lookupTargetKnobs(s.target);
  return !knobs || knobs->hasStorageLevels();
}

static bool hasDenseLayouts(const Schedule &s) {
  const TargetKnobs *knobs = lookupTargetKnobs(s.target);
  return knobs && knobs->hasDenseLayouts();
}

static std::string describeLevels(const Schedule &s) {
  std::string out;
  for (size_t n = 0; n < s.levels.size(); ++n)
    out += (n ? ", " : "") + s.levels[n].dim.str() + " : " +
           toString(s.levels[n].format);
  return "(" + out + ")";
}

static int findLevel(const Schedule &s, DimPart d) {
  for (size_t n = 0; n < s.levels.size(); ++n)
    if (s.levels[n].dim == d)
      return static_cast<int>(n);
  return -1;
}

/// Storage levels: the parts implied by the splits, outer before inner, and
/// level formats MLIR accepts.
static std::string checkLevels(const Schedule &s) {
  std::vector<DimPart> expected;
  for (Role r : {s.rowRole(), s.colRole()}) {
    if (s.splitOf(r) > 1) {
      expected.push_back({r, Part::Outer});
      expected.push_back({r, Part::Inner});
    } else {
      expected.push_back({r, Part::Whole});
    }
  }
  if (s.levels.size() != expected.size())
    return "levels " + describeLevels(s) + " do not match the splits [" +
           std::to_string(s.splitRow) + ", " + std::to_string(s.splitCol) +
           "]: expected " + std::to_string(expected.size()) + " levels";
  for (DimPart d : expected)
    if (findLevel(s, d) < 0)
      return "levels " + describeLevels(s) + " lack '" + d.str() + "'";
  for (Role r : {s.rowRole(), s.colRole()})
    if (s.splitOf(r) > 1 &&
        findLevel(s, {r, Part::Outer}) > findLevel(s, {r, Part::Inner}))
      return "level '" + DimPart{r, Part::Inner}.str() +
             "' comes before its outer part";

  for (size_t n = 0; n < s.levels.size(); ++n) {
    LevelFormat f = s.levels[n].format;
    LevelFormat prev = n ? s.levels[n - 1].format : LevelFormat::Dense;
    if (f == LevelFormat::Singleton &&
        (n == 0 || (prev != LevelFormat::CompressedNU &&
                    prev != LevelFormat::Singleton)))
      return "a singleton level must follow a compressed_nu level";
    if (f == LevelFormat::CompressedNU &&
        (n + 1 == s.levels.size() ||
         s.levels[n + 1].format != LevelFormat::Singleton))
      return "a compressed_nu level must be followed by a singleton level";
  }

  // Combinations that crash MLIR's sparsifier (no assertions in release
  // builds). Each was reproduced with mlir-opt 22.1; see docs/schedules.md.
  //
  // (1) The sparse operand's first dimension split while its second is not,
  //     e.g. (i floordiv 2 : dense, k : compressed, i mod 2 : dense) or
  //     (i floordiv 2 : dense, i mod 2 : dense, k : compressed): inferring
  //     the level-to-dimension map segfaults in AffineMap::compose. Splitting
  //     only the second dimension, or both, works.
  if (std::string why = whyIllegalForOrientation(s, /*transposed=*/false);
      !why.empty())
    return why;
  return "";
}

std::string sptune::whyIllegalForOrientation(const Schedule &s,
                                             bool transposed) {
  Role first = transposed ? s.colRole() : s.rowRole();
  Role second = transposed ? s.rowRole() : s.colRole();
  if (hasStorageLevels(s) && s.splitOf(first) > 1 &&
      s.splitOf(second) == 1)
    return "splitting only the sparse operand's first dimension ('" +
           std::string(toString(first)) +
           "') crashes the sparsifier; split both dimensions or only the "
           "second";
  return "";
}

/// Loop order: every loop once; the sparse operand's levels in level order.
static std::string checkLoopOrder(const Schedule &s) {
  std::vector<DimPart> expected;
  for (const StorageLevel &l : s.levels)
    expected.push_back(l.dim);
  if (auto f = s.freeRole())
    expected.push_back({*f, Part::Whole});
  if (s.loopOrder.size() != expected.size())
    return "loop order has " + std::to_string(s.loopOrder.size()) +
           " loops, the kernel has " + std::to_string(expected.size());
  for (DimPart d : expected)
    if (std::count(s.loopOrder.begin(), s.loopOrder.end(), d) != 1)
      return "loop order must contain '" + d.str() + "' exactly once";
  int last = -1;
  for (const StorageLevel &l : s.levels) {
    int pos = static_cast<int>(
        std::find(s.loopOrder.begin(), s.loopOrder.end(), l.dim) -
        s.loopOrder.begin());
    if (pos < last)
      return "loop '" + l.dim.str() +
             "' must be nested inside the loops of the sparse operand's "
             "outer levels (levels are visited in storage order)";
    last = pos;
  }
  return "";
}

std::string sptune::whyIllegal(const Schedule &s) {
  if (s.splitRow < 1 || s.splitCol < 1 || s.splitRow > 4096 ||
      s.splitCol > 4096)
    return "split sizes must be in [1, 4096]";
  if (s.tile < 0)
    return "tile must be non-negative";
  if (s.tile > 0 && !s.freeRole())
    return std::string("a '") + toString(s.kernel) +
           "' kernel has no free dense loop to tile";
  if (s.denseTransposed >> Schedule::denseOperands(s.kernel).size())
    return std::string("a '") + toString(s.kernel) + "' kernel has " +
           std::to_string(Schedule::denseOperands(s.kernel).size()) +
           " dense operands with a layout";
  if (s.denseTransposed != 0 && !hasDenseLayouts(s))
    return std::string("dense operand layouts are not a knob of target '") +
           toString(s.target) + "'";
  if (hasStorageLevels(s)) {
    if (std::string why = checkLevels(s); !why.empty())
      return why;
    if (std::string why = checkLoopOrder(s); !why.empty())
      return why;
    for (int w : {s.posWidth, s.crdWidth})
      if (w != 32 && w != 64)
        return "position and coordinate widths must be 32 or 64";
  }
  // SpGEMM, MTTKRP and the batched SpMM are computed by a target's own
  // kernel on their operands' own storage (keepsOperandStorage): nothing
  // is converted, so their schedules have one storage part, CSR in the
  // natural order with the widths [64, 64] standing for the operands' own,
  // whatever they are (an SpGEMM's rows; an MTTKRP's slices and fibers of
  // CSF or COO, B's third level no part of a schedule; a batched SpMM's
  // rows of every batch, its batch level no part of a schedule). None
  // tiles: the Gustavson kernel's rows are C's, the MTTKRP and batched
  // kernels keep a row of their output in vector registers.
  if (keepsOperandStorage(s.kernel)) {
    Schedule csr = Schedule::csr(s.target, s.kernel);
    const char *what =
        s.kernel == KernelType::SpGEMM
            ? "an SpGEMM kernel is computed row by row on its operands' own "
              "CSR storage"
        : s.kernel == KernelType::MTTKRP
            ? "an MTTKRP kernel is computed slice by slice on B's own CSF "
              "or COO storage"
            : "a batched SpMM kernel is computed row by row over every "
              "batch on A's own storage (dense batches of CSR rows, or COO)";
    const char *whose = s.kernel == KernelType::SpGEMM   ? "the operands' own"
                        : s.kernel == KernelType::MTTKRP ? "B's own"
                                                         : "A's own";
    if (s.splitRow != 1 || s.splitCol != 1 || s.tile != 0 ||
        (hasStorageLevels(s) &&
         (s.levels != csr.levels || s.loopOrder != csr.loopOrder ||
          s.posWidth != 64 || s.crdWidth != 64)))
      return std::string(what) +
             ": levels = [i : dense, k : compressed], order = [i, k, j], "
             "widths = [64, 64] (" +
             whose + ", whatever they are), no split, no tile";
  }
  if (const TargetKnobs *knobs = lookupTargetKnobs(s.target))
    return knobs->whyIllegal(s);
  return "";
}

double sptune::estimateStoredValues(const Schedule &s, int64_t rows,
                                    int64_t cols, int64_t nnz) {
  // Entries of each level: a dense level has (entries of its parent) x size
  // of them, a compressed one at most nnz; positions arrays are as long as
  // the parent level's entries. The largest level bounds time and memory.
  double count = 1, largest = 1;
  for (const StorageLevel &l : s.levels) {
    int64_t dimSize = l.dim.role == s.rowRole() ? rows : cols;
    int64_t b = s.splitOf(l.dim.role);
    double size = l.dim.part == Part::Whole   ? static_cast<double>(dimSize)
                  : l.dim.part == Part::Inner ? static_cast<double>(b)
                                              : static_cast<double>((dimSize + b - 1) / b);
    if (l.format == LevelFormat::Dense)
      count *= size;
    else if (l.format != LevelFormat::Singleton)
      count = std::min(count * size, static_cast<double>(nnz));
    largest = std::max(largest, count);
  }
  return largest;
}

std::string sptune::whyIllegalForSparseOutput(const Schedule &s,
                                             bool inPlace) {
  if (productShape(s.kernel) != ProductShape::SampledMatrixMatrix ||
      s.loopOrder.empty())
    return "";
  // A library's kernel (cuSPARSE on NVVM) runs no loops of ours.
  if (const TargetKnobs *knobs = lookupTargetKnobs(s.target);
      knobs && knobs->runsLibraryKernel(s))
    return "";
  Role k = *Schedule::reductionRole(s.kernel);
  size_t n = s.loopOrder.size();
  bool innermost = s.loopOrder[n - 1].role == k;
  bool aboveInnermostSparseLevel =
      n >= 2 && s.loopOrder[n - 2].role == k && !s.levels.empty() &&
      s.loopOrder[n - 1] == s.levels.back().dim &&
      s.levels.back().format != LevelFormat::Dense;
  bool outermost = s.loopOrder[0].role == k;
  if (s.tile > 0)
    return "tiling the reduction of an SDDMM with a sparse output is not "
           "supported";
  if (inPlace) {
    if (outermost || aboveInnermostSparseLevel)
      return "";
    return "the in-place SDDMM computes a wrong result unless the reduction "
           "loop 'k' is outermost or directly above an innermost non-dense "
           "level (MLIR sparsifier limitation)";
  }
  if (innermost || aboveInnermostSparseLevel)
    return "";
  return "an SDDMM with a sparse output needs the reduction loop 'k' "
         "innermost or directly above an innermost non-dense level (MLIR "
         "sparsifier limitation)";
}

std::string sptune::whyIllegalForLibraryKernel(const Schedule &s,
                                               bool sampledInPlace) {
  const TargetKnobs *knobs = lookupTargetKnobs(s.target);
  if (!knobs || !knobs->runsLibraryKernel(s) || sampledInPlace ||
      productShape(s.kernel) != ProductShape::SampledMatrixMatrix)
    return "";
  return "a library kernel computes the sampled product in place only (S = S "
         "+ spy(S) * (A B)); this op writes a separate output";
}

std::string sptune::whyIllegalForShape(const Schedule &s, int64_t rows,
                                       int64_t cols, int64_t nnz) {
  if (!hasStorageLevels(s))
    return "";
  if (nnz > 0) {
    double stored = estimateStoredValues(s, rows, cols, nnz);
    double limit = 32.0 * static_cast<double>(nnz) + 1048576.0;
    if (stored > limit)
      return "storage " + describeLevels(s) + " may hold " +
             std::to_string(static_cast<int64_t>(stored)) +
             " values for " + std::to_string(nnz) + " nonzeros";
    if (s.posWidth == 32 && stored >= 2147483647.0)
      return "32-bit positions cannot address the storage";
  }
  // A block as large as the dimension leaves the outer level one position:
  // with static sizes MLIR folds `d floordiv size` to 0, and the sparsifier
  // then cannot order the loops or crashes (found by sptune-fuzz on 8x8).
  auto whyNotBlocked = [](int64_t size, int64_t block,
                          const char *dim) -> std::string {
    if (size < 0) // unknown until run time
      return "";
    if (size % block != 0)
      return "block size " + std::to_string(block) + " does not divide the " +
             std::to_string(size) + " " + dim;
    if (block > 1 && block == size)
      return "block size " + std::to_string(block) + " equals the " + dim +
             " (the outer level would be a constant)";
    return "";
  };
  std::string why = whyNotBlocked(rows, s.splitRow, "rows");
  return why.empty() ? whyNotBlocked(cols, s.splitCol, "columns") : why;
}

