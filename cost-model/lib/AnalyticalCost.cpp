//===- AnalyticalCost.cpp - A model-free estimate of schedule cost --------===//

#include "sptune/CostModel/AnalyticalCost.h"

#include "sptune/Target/KnobEncoding.h"
#include "sptune/Target/Target.h"

#include <algorithm>
#include <cmath>

using namespace sptune;

/// Fill of the nonempty br x bc blocks, from the square block fills the
/// statistics measure (interpolated on the block area).
static double blockFill(const MatrixStats &st, int64_t br, int64_t bc) {
  double area = static_cast<double>(br) * static_cast<double>(bc);
  if (area <= 1)
    return 1.0;
  double side = std::sqrt(area);
  double fill = 1.0;
  double prevSide = 1.0, prevFill = 1.0;
  for (size_t n = 0; n < MatrixStats::kBlockSizes.size(); ++n) {
    double s = MatrixStats::kBlockSizes[n];
    double f = st.blockFill[n] > 0 ? st.blockFill[n] : 1.0 / (s * s);
    if (side <= s) {
      double t = (std::log(side) - std::log(prevSide)) /
                 (std::log(s) - std::log(prevSide));
      return std::exp((1 - t) * std::log(prevFill) + t * std::log(f));
    }
    prevSide = s;
    prevFill = f;
    fill = f;
  }
  // Larger than the largest measured block: assume the fill keeps dropping
  // with the area.
  double s = MatrixStats::kBlockSizes.back();
  return std::max(fill * (s * s) / area, 1.0 / area);
}

double sptune::analyticalCost(const Schedule &s, const MatrixStats &st,
                              int64_t free) {
  double rows = std::max<double>(1, static_cast<double>(st.rows));
  double cols = std::max<double>(1, static_cast<double>(st.cols));
  double nnz = std::max<double>(1, static_cast<double>(st.nnz));
  bool hasFree = s.freeRole().has_value();
  double f = hasFree ? (free > 0 ? static_cast<double>(free) : 64.0) : 1.0;
  double br = static_cast<double>(std::max<int64_t>(1, s.splitRow));
  double bc = static_cast<double>(std::max<int64_t>(1, s.splitCol));

  // Stored entries (blocked formats store their blocks densely) and the
  // iterations of the storage levels, level by level.
  double stored =
      nnz / std::clamp(blockFill(st, s.splitRow, s.splitCol), 1e-6, 1.0);
  double nonemptyRows = std::max(1.0, rows - static_cast<double>(st.emptyRows));
  double nonemptyCols = std::max(1.0, cols - static_cast<double>(st.emptyCols));
  Role rowRole = s.rowRole();
  auto extentOf = [&](const StorageLevel &l) {
    bool isRow = l.dim.role == rowRole;
    double extent = isRow ? rows : cols;
    double block = isRow ? br : bc;
    if (l.dim.part == Part::Outer)
      return std::ceil(extent / block);
    if (l.dim.part == Part::Inner)
      return block;
    return extent;
  };
  double visits = 1.0, overhead = 0.0;
  for (size_t n = 0; n < s.levels.size(); ++n) {
    const StorageLevel &l = s.levels[n];
    double extent = extentOf(l);
    if (l.format == LevelFormat::Dense) {
      visits *= extent;
    } else if (n + 1 == s.levels.size()) {
      visits = stored;
    } else if (n == 0) {
      // An outermost compressed level visits the nonempty slices only.
      double nonempty = l.dim.role == rowRole ? nonemptyRows : nonemptyCols;
      visits = std::min(extent, nonempty);
    } else {
      // A compressed middle level: one visit per nonempty block of the
      // levels below it.
      double inner = 1.0;
      for (size_t m = n + 1; m < s.levels.size(); ++m)
        inner *= extentOf(s.levels[m]);
      visits = std::min(visits * extent, std::max(visits, stored / inner));
    }
    overhead += visits;
  }
  double work = std::max(visits, stored) * f + overhead;

  // Loop order cliffs (Scorch): the free dense loop outside the sparse loops
  // re-walks the sparse structure and strides through the dense operands;
  // the reduction role outermost scatters the output.
  if (hasFree && !s.loopOrder.empty() &&
      s.loopOrder.back() != DimPart{*s.freeRole(), Part::Whole})
    work *= 3.0;
  bool reductionOuter =
      !s.loopOrder.empty() &&
      s.loopOrder.front().role == Schedule::reductionRole(s.kernel);
  if (reductionOuter)
    work *= 1.5;
  for (const StorageLevel &l : s.levels)
    if (l.format == LevelFormat::Singleton) {
      work *= 1.15; // COO: a coordinate per entry and a segmented outer loop
      break;
    }
  if (s.posWidth == 32)
    work *= 0.98;
  if (s.crdWidth == 32)
    work *= 0.97;

  // The target's own knobs (threads, bypassing, ...): its KnobEncoding.
  if (const Target *target = TargetRegistry::lookup(s.target))
    work = target->knobEncoding().scaleAnalyticalWork(s, work, st, f);
  if (s.tile > 0 && hasFree)
    work *= static_cast<double>(s.tile) < f ? 0.98 : 1.0;
  return std::isfinite(work) && work > 0 ? work : 1e300;
}
