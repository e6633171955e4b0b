//===- NvvmScheduleSpace.cpp - The NVVM target's schedules ----------------===//

#include "nvvm/NvvmScheduleSpace.h"
#include "nvvm/NvvmKnobs.h"

#include "nvvm/NvvmLegality.h"

#include <unordered_set>

using namespace sptune;

NvvmScheduleSpace::NvvmScheduleSpace(NvvmSpaceConfig config)
    : cfg(std::move(config)) {}

std::vector<Schedule> NvvmScheduleSpace::storages(KernelType kernel) const {
  std::vector<Schedule> out = {Schedule::csr(TargetKind::NVVM, kernel),
                               Schedule::csc(TargetKind::NVVM, kernel),
                               Schedule::dcsr(TargetKind::NVVM, kernel),
                               Schedule::coo(TargetKind::NVVM, kernel)};
  for (int64_t b : cfg.blockSizes)
    if (b > 1)
      out.push_back(Schedule::bsr(TargetKind::NVVM, kernel, b, b));
  return out;
}

/// The loop orders of `s`'s storage: the free loop innermost (as `setLevels`
/// gives), outermost, then at each position in between, outer to inner. The
/// in-between positions hold the heuristic default of SDDMM ([i, k, j]: the
/// reduction directly above the innermost level).
static std::vector<std::vector<DimPart>> loopOrders(const Schedule &s) {
  std::vector<DimPart> levelOrder;
  for (const StorageLevel &l : s.levels)
    levelOrder.push_back(l.dim);
  std::optional<Role> free = s.freeRole();
  if (!free)
    return {levelOrder};
  size_t n = levelOrder.size();
  std::vector<size_t> positions = {n, 0};
  for (size_t pos = 1; pos < n; ++pos)
    positions.push_back(pos);
  std::vector<std::vector<DimPart>> out;
  for (size_t pos : positions) {
    std::vector<DimPart> order = levelOrder;
    order.insert(order.begin() + pos, DimPart{*free, Part::Whole});
    out.push_back(order);
  }
  return out;
}

/// Whether `s` fits the operand of `shape` (when its dimensions are known).
static bool fitsShape(const ProblemShape &shape, const Schedule &s) {
  if (shape.rows <= 0 && shape.cols <= 0)
    return true;
  // A negative dimension is unknown to `whyIllegalForShape`; the storage
  // estimate needs both dimensions.
  int64_t rows = shape.rows > 0 ? shape.rows : -1;
  int64_t cols = shape.cols > 0 ? shape.cols : -1;
  int64_t nnz = rows > 0 && cols > 0 ? shape.nnz : 0;
  return whyIllegalForShape(s, rows, cols, nnz).empty();
}

bool NvvmScheduleSpace::admits(const ProblemShape &shape,
                               const Schedule &s) const {
  if (s.target != TargetKind::NVVM || s.kernel != shape.kernel)
    return false;
  if (canonicalize(s) != s)
    return false;
  if (!whyIllegalForNvvm(s, cfg.sparseRuntimeLibrary).empty())
    return false;
  return fitsShape(shape, s);
}

void NvvmScheduleSpace::enumerate(
    const ProblemShape &shape,
    const std::function<bool(const Schedule &)> &fn) const {
  // Distinct knob values can meet in one canonical form (the cuSPARSE path
  // ignores loop order and threads; repeated configuration values).
  std::unordered_set<Schedule, ScheduleHash> seen;
  auto emit = [&](const Schedule &s) {
    if (!admits(shape, s) || !seen.insert(s).second)
      return true;
    return fn(s);
  };
  for (Schedule s : storages(shape.kernel)) {
    if (!fitsShape(shape, s))
      continue;
    std::vector<std::vector<DimPart>> orders = loopOrders(s);
    for (auto [posWidth, crdWidth] : cfg.widths) {
      s.posWidth = posWidth;
      s.crdWidth = crdWidth;
      // MLIR's sparse GPU code generation.
      for (const std::vector<DimPart> &order : orders) {
        Schedule g = s;
        g.loopOrder = order;
        gpuKnobs(g).libgen = false;
        for (int threads : cfg.threads) {
          gpuKnobs(g).threads = threads;
          if (!emit(g))
            return;
        }
      }
      // cuSPARSE: one schedule per storage and widths.
      if (cfg.includeLibgen) {
        Schedule l = s;
        gpuKnobs(l).libgen = true;
        if (!emit(canonicalize(l)))
          return;
      }
    }
  }
}
