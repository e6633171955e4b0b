//===- CpuMeasurer.h - Measure schedules in the JIT -------------*- C++ -*-===//
//
// Part of sptune. Builds the bench module for a (matrix, kernel, schedule),
// applies the schedule, lowers with sptune-lower-cpu, JIT-compiles with
// MLIR's ExecutionEngine (libomp loaded for OpenMP), checks the result once
// against a double-precision reference and times repetitions. Compiled
// kernels are cached by (kernel, shape, schedule).
//
// It runs in the calling process: a compiler crash or a hang takes the
// process down. Collectors run it inside `sptune-measure` workers (see
// sptune/Collect/WorkerPool.h), which turn those into failed samples.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_CPU_CPUMEASURER_H
#define SPTUNE_TARGETS_CPU_CPUMEASURER_H

#include "sptune/Target/Measurer.h"

#include <memory>

namespace sptune {

class CpuMeasurer : public Measurer {
public:
  CpuMeasurer();
  ~CpuMeasurer() override;
  TargetKind target() const override { return TargetKind::CPU; }

  /// Measures `schedule`; an empty-levels schedule is never passed here —
  /// use measureUpstreamDefault for the MLIR sparsifier's own choice.
  Measurement measure(const CsrMatrix &matrix, const KernelSpec &spec,
                      const Schedule &schedule,
                      const MeasureOptions &options) override;

  /// The baseline: the kernel without a schedule, through upstream's loop
  /// sort and sparsifier with row-parallel OpenMP (dense-outer-loop), no
  /// vectorization — what `--sparsifier` with OpenMP gives a user.
  Measurement measureUpstreamDefault(const CsrMatrix &matrix,
                                     const KernelSpec &spec,
                                     const MeasureOptions &options);

  /// "mlir-default" (measureUpstreamDefault), "eigen" and "rsb" (the
  /// library baselines, "not built" where configure did not find them),
  /// "reference" (hand-written OpenMP kernels, ReferenceBaseline.h),
  /// "torch" (LibTorch's sparse CSR operations, TorchBaseline.h).
  Measurement measureBaseline(std::string_view name, const CsrMatrix &matrix,
                              const KernelSpec &spec,
                              const MeasureOptions &options) override;
  std::string baselineSchedule(std::string_view name,
                               const KernelSpec &spec) const override;

  /// An MTTKRP on `tensor` under `schedule` (sptune/Target/TensorBench.h):
  /// B converted to its storage before the timed calls, the result checked
  /// against a double-precision reference.
  Measurement measureTensor(const CooTensor &tensor, const KernelSpec &spec,
                            const Schedule &schedule,
                            const MeasureOptions &options) override;

  /// The lowered LLVM-dialect module text of the last compile (debugging).
  std::string lastModule() const override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_CPU_CPUMEASURER_H
