//===- DefaultSchedule.cpp - A registered target's model-free schedules ---===//

#include "sptune/Target/DefaultSchedule.h"

#include "sptune/Target/Target.h"

using namespace sptune;

Schedule sptune::defaultSchedule(TargetKind target, KernelType kernel,
                                 const MatrixStats *stats, int64_t free) {
  if (const Target *t = TargetRegistry::lookup(target))
    return t->heuristicSchedule(kernel, stats, free);
  return canonicalize(Schedule::csr(target, kernel));
}

Schedule sptune::referenceSchedule(TargetKind target, KernelType kernel) {
  if (const Target *t = TargetRegistry::lookup(target))
    return t->referenceSchedule(kernel);
  return canonicalize(Schedule::csr(target, kernel));
}
