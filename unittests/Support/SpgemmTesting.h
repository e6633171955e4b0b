//===- SpgemmTesting.h - CPU SpGEMM schedules in tests ----------*- C++ -*-===//
//
// Part of sptune's unit tests: every setting of the CPU's SpGEMM knobs
// (workspace and pass count, `auto` included, one thread or all), as
// schedules of the SpGEMM kernel.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_UNITTESTS_SUPPORT_SPGEMMTESTING_H
#define SPTUNE_UNITTESTS_SUPPORT_SPGEMMTESTING_H

#include "cpu/CpuKnobs.h"
#include "sptune/Schedule/Schedule.h"

#include <vector>

namespace sptune::test {

/// The 18 settings: accumulator auto / dense / hash x passes auto / one /
/// two x parallel none / outer, not canonicalized.
inline std::vector<Schedule> cpuSpgemmKnobGrid() {
  std::vector<Schedule> out;
  for (SpgemmAccumulator a : {SpgemmAccumulator::Auto, SpgemmAccumulator::Dense,
                              SpgemmAccumulator::Hash})
    for (SpgemmPasses p :
         {SpgemmPasses::Auto, SpgemmPasses::One, SpgemmPasses::Two})
      for (ParallelKind par : {ParallelKind::None, ParallelKind::Outer}) {
        Schedule s = Schedule::csr(TargetKind::CPU, KernelType::SpGEMM);
        cpuKnobs(s).accumulator = a;
        cpuKnobs(s).passes = p;
        cpuKnobs(s).parallel = par;
        out.push_back(s);
      }
  return out;
}

} // namespace sptune::test

#endif // SPTUNE_UNITTESTS_SUPPORT_SPGEMMTESTING_H
