//===- AnalyticalCost.cpp - A model-free estimate of schedule cost --------===//

#include "sptune/CostModel/AnalyticalCost.h"

#include <algorithm>
#include <cmath>
#include <thread>

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

  switch (s.target) {
  case TargetKind::CPU: {
    const CpuKnobs &c = s.cpu;
    if (c.parallel == ParallelKind::Outer) {
      // hardware_concurrency() reads /sys on every call; ask once.
      static const double hw =
          std::max(1u, std::thread::hardware_concurrency());
      double p = c.threads > 0 ? std::min<double>(c.threads, hw) : hw;
      // Static scheduling of skewed rows waits for the longest chunk.
      double cv = st.rowMean > 0 ? st.rowStd / st.rowMean : 0.0;
      double imbalance =
          c.omp == OmpScheduleKind::Static ? 1.0 + 0.5 * cv : 1.0 + 0.1 * cv;
      work = work * imbalance / p + 2e3 * p;
    }
    if (c.vectorLength > 0) {
      bool innerDense =
          hasFree && !s.loopOrder.empty() &&
          s.loopOrder.back() == DimPart{*s.freeRole(), Part::Whole};
      work *= innerDense && f >= c.vectorLength ? 0.6 : 1.05;
    }
    break;
  }
  case TargetKind::NVVM:
    work /= std::max(1, s.gpu.threads) / 32.0 + 1.0;
    if (s.gpu.libgen)
      work *= 0.5;
    break;
  case TargetKind::SPADE:
    work /= s.spade.pes > 0 ? s.spade.pes : 16;
    if (s.spade.bypassSparse)
      work *= 0.95;
    break;
  }
  if (s.tile > 0 && hasFree)
    work *= static_cast<double>(s.tile) < f ? 0.98 : 1.0;
  return std::isfinite(work) && work > 0 ? work : 1e300;
}
