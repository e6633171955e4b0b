//===- CpuScheduleSpace.h - The CPU target's schedules ----------*- C++ -*-===//
//
// Part of sptune. The space the CPU target searches: WACO-style storage
// (splits, level order, per-level formats, widths) together with the loop
// order (where the free dense loop sits among the storage levels), a tile of
// the free loop, OpenMP parallelization of the outer loop, and vectorization.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_CPUSCHEDULESPACE_H
#define SPTUNE_TARGETS_CPU_CPUSCHEDULESPACE_H

#include "sptune/Target/ScheduleSpace.h"
#include "cpu/CpuKnobs.h"

#include <vector>

namespace sptune {

/// The values each knob takes. The defaults give a space of about 1.7 M
/// schedules for SpMM; tests use smaller ones.
struct CpuSpaceConfig {
  std::vector<int64_t> splits = {1, 2, 4, 8, 16};
  std::vector<int64_t> tiles = {0, 16, 32};
  /// Whether tiles combine with vectorization (column panels of vectors).
  /// Off: the shipped model was trained before the lowering could vectorize
  /// panels, so its scores for such schedules are extrapolations (and on
  /// the AMD EPYC VM they lose to the heuristic, docs/results.md); the
  /// fuzzer's space turns it on.
  bool vectorizedTiles = false;
  /// (position, coordinate) width pairs.
  std::vector<std::pair<int, int>> widths = {{32, 32}, {64, 64}};
  /// Thread counts for parallel schedules (0 = all hardware threads).
  std::vector<int> threads = {0};
  /// (kind, chunk) pairs for parallel schedules.
  std::vector<std::pair<OmpScheduleKind, int>> omp = {
      {OmpScheduleKind::Static, 0},
      {OmpScheduleKind::Dynamic, 16},
      {OmpScheduleKind::Dynamic, 64}};
  std::vector<int> vectorLengths = {0, 4, 8, 16};
  /// Orders the rows are visited in. Natural only by default: reverse
  /// Cuthill-McKee in the kernel lost on every matrix measured (0.37-0.56x
  /// the heuristic on the 14 large shared matrices, 0.52-0.56x on SPADE's
  /// 160 generated ones, docs/results.md), so the tuner's space leaves it
  /// out; the fuzzer's space has it (a square matrix's only).
  std::vector<RowOrderKind> rowOrders = {RowOrderKind::Natural};
  /// SpGEMM's kernel knobs (its only storage is CSR, and it takes no OpenMP
  /// schedule, chunk or vectors): every accumulator and pass count chosen
  /// outright (`auto`, the lowering's options and their run-time rules, is
  /// the heuristic's).
  std::vector<SpgemmAccumulator> accumulators = {SpgemmAccumulator::Dense,
                                                 SpgemmAccumulator::Hash};
  std::vector<SpgemmPasses> passes = {SpgemmPasses::One, SpgemmPasses::Two};
  /// MTTKRP's kernel knob (its only storage is B's own, and it takes no
  /// OpenMP schedule, chunk or vectors): both forms chosen outright (`auto`,
  /// decided when the kernel runs, is the heuristic's).
  std::vector<MttkrpForm> mttkrpForms = {MttkrpForm::Factored,
                                         MttkrpForm::EntryWise};
  bool includeCoo = true;
  /// Every layout of the kernel's dense operands (Schedule::denseTransposed),
  /// or only the natural one.
  bool denseLayouts = true;
  /// SDDMM is written with a sparse output sharing the sampling pattern (as
  /// sptune measures it, and as large matrices need): keep only the loop
  /// orders the sparsifier computes correctly for that form.
  bool sddmmSparseOutput = true;
};

class CpuScheduleSpace : public ScheduleSpace {
public:
  explicit CpuScheduleSpace(CpuSpaceConfig config = {});

  TargetKind target() const override { return TargetKind::CPU; }
  void enumerate(const ProblemShape &shape,
                 const std::function<bool(const Schedule &)> &fn) const override;
  /// Rejection sampling over the knob grid (uniform over canonical legal
  /// schedules without enumerating the space).
  std::vector<Schedule> sample(const ProblemShape &shape, size_t count,
                               uint64_t seed) const override;
  /// No more vector lanes than the innermost free loop has iterations.
  bool fitsFreeSize(const Schedule &s, int64_t free) const override;
  /// No more threads than this process may run on at once (its affinity
  /// mask), or `usableCpus` when set.
  bool fitsThisMachine(const Schedule &s) const override;
  /// The CPUs fitsThisMachine allows (0 = ask the affinity mask once).
  void setUsableCpus(int cpus) { usableCpus = cpus; }

  const CpuSpaceConfig &config() const { return cfg; }

private:
  /// Storage + loop order of one kernel: everything but the knobs.
  std::vector<Schedule> structures(KernelType kernel) const;
  /// The number of knob combinations per structure of `kernel`.
  uint64_t knobCombinations(KernelType kernel) const;
  /// Applies knob combination `index` to `s`.
  void applyKnobs(Schedule &s, uint64_t index) const;
  /// Whether `s` is legal, canonical and fits `shape`.
  bool admits(const ProblemShape &shape, const Schedule &s) const;

  CpuSpaceConfig cfg;
  int usableCpus = 0;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUSCHEDULESPACE_H
