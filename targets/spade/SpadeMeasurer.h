//===- SpadeMeasurer.h - Measure SPADE schedules by simulation --*- C++ -*-===//
//
// Part of sptune. The SPADE target's measurer: builds the tile program of a
// schedule, simulates it (cycles are deterministic, so one repetition is the
// measurement), and, when asked, checks the functional result against a
// double-precision reference. Plugs into the collector like any measurer.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADEMEASURER_H
#define SPTUNE_TARGETS_SPADE_SPADEMEASURER_H

#include "spade/MachineConfig.h"
#include "spade/Simulator.h"
#include "sptune/Target/Measurer.h"

namespace sptune {

class SpadeMeasurer : public Measurer {
public:
  explicit SpadeMeasurer(SpadeMachineConfig machine = SpadeMachineConfig())
      : machineConfig(machine) {}

  TargetKind target() const override { return TargetKind::SPADE; }

  /// `spec.elementBits` (32 or 64) sets the machine's element size.
  /// Status Illegal for schedules SPADE cannot run (other targets, SpMV,
  /// illegal or oversized schedules, other element sizes), Timeout past
  /// options.timeoutSeconds, WrongResult when options.checkResult and the
  /// result differs. On success `cycles` is set, the times are cycles / clock,
  /// `compileSeconds` is the time spent building and binding the program, and
  /// `detailsJson` holds the simulator's statistics (SpadeStats::toJson without
  /// wall time).
  Measurement measure(const CsrMatrix &matrix, const KernelSpec &spec,
                      const Schedule &schedule,
                      const MeasureOptions &options) override;

  const SpadeMachineConfig &machine() const { return machineConfig; }

private:
  SpadeMachineConfig machineConfig;
};

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADEMEASURER_H
