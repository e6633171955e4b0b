//===- CpuTarget.cpp - Target "cpu" ---------------------------------------===//

#include "cpu/CpuTarget.h"

#include "cpu/CpuHeuristic.h"
#include "cpu/CpuKnobEncoding.h"
#include "cpu/CpuKnobs.h"
#include "cpu/CpuScheduleSpace.h"
#include "sptune/Target/Target.h"

using namespace sptune;

namespace {
class CpuTarget : public Target {
public:
  std::string_view name() const override { return "cpu"; }
  TargetKind kind() const override { return TargetKind::CPU; }
  const ScheduleSpace &space() const override { return cpuSpace; }
  Schedule heuristicSchedule(KernelType kernel, const MatrixStats *stats,
                             int64_t free) const override {
    return cpuHeuristicSchedule(kernel, stats, free);
  }
  Schedule referenceSchedule(KernelType kernel) const override {
    return cpuMlirDefaultSchedule(kernel);
  }
  std::vector<std::string> baselines() const override {
    return {"mlir-default", "eigen", "rsb", "reference", "torch"};
  }
  /// MLIR's default computes any kernel; the libraries only the built-in
  /// ones, and Eigen and librsb have no sampled product.
  bool baselineComputes(std::string_view name,
                        KernelType kernel) const override {
    if (name == "mlir-default")
      return true;
    if (!hasMatrixProductShape(kernel))
      return false;
    return !((name == "eigen" || name == "rsb") &&
             productShape(kernel) == ProductShape::SampledMatrixMatrix);
  }

  /// The Gustavson kernel (cpu/GustavsonSpgemm.h), the MTTKRP kernel
  /// (cpu/FactoredMttkrp.h) and the batched SpMM kernel
  /// (cpu/BatchedRowsSpmm.h).
  bool hasOwnKernel(KernelType kernel) const override {
    return keepsOperandStorage(kernel);
  }

  const TargetKnobs &knobs() const override { return cpuTargetKnobs(); }
  const KnobEncoding &knobEncoding() const override { return encoding; }
  /// OpenMP's static schedule over compressed rows becomes rows balanced by
  /// stored entries, as in the heuristic: the knob encoding has no feature
  /// for `omp = balanced` (the shipped data predate it), and balanced
  /// measured at least as fast as static for every kernel on the AMD EPYC
  /// VM (docs/results.md, "Rows balanced by stored entries").
  Schedule withUnseenKnobsByRule(const Schedule &s) const override {
    const CpuKnobs &c = cpuKnobs(s);
    if (c.omp != OmpScheduleKind::Static || c.chunk != 0)
      return s;
    Schedule balanced = s;
    cpuKnobs(balanced).omp = OmpScheduleKind::Balanced;
    // (whyIllegal asks whyNotBalanceable for a balanced schedule.)
    return whyIllegal(balanced).empty() ? balanced : s;
  }

  /// Every one-thread pick (the heuristic's for a tiny training matrix, or
  /// the model's) gets the OpenMP loop where its outer loop can have one: a
  /// variant may be given a matrix of any size, and a large one in one
  /// thread loses up to the core count, a tiny one with the loop a few
  /// microseconds (docs/results.md, "Tiny kernels in one thread"). The
  /// loop's rows are balanced by stored entries where they can be, else
  /// split in static blocks (the heuristic's dynamic chunks for skewed rows
  /// are not restored).
  Schedule asVariant(const Schedule &s) const override {
    if (cpuKnobs(s).parallel != ParallelKind::None)
      return s;
    Schedule parallel = s;
    cpuKnobs(parallel).parallel = ParallelKind::Outer;
    parallel = canonicalize(parallel); // none again where it cannot be
    if (cpuKnobs(parallel).parallel == ParallelKind::None ||
        !whyIllegal(parallel).empty())
      return s;
    return withUnseenKnobsByRule(parallel);
  }

private:
  CpuKnobEncoding encoding;
  CpuScheduleSpace cpuSpace;
};
} // namespace

void sptune::registerCpuTarget() {
  TargetRegistry::add(std::make_unique<CpuTarget>());
}
