//===- AnalyticalCost.h - A model-free cost estimate ------------*- C++ -*-===//
//
// Part of sptune. The `heuristic` mode of the cost model orders candidates
// without a learned model: the heuristic default schedule first, then the
// others by this rough analytical estimate. It counts the iterations each
// storage level makes (dense levels visit every coordinate, compressed ones
// only the stored ones, blocked formats pay for their fill), charges the
// asymptotic cliffs Scorch warns about (the free dense loop outside the
// sparse loops, a scattered output), and credits parallel and vector
// execution. Its unit is arbitrary; only the order matters.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_COSTMODEL_ANALYTICALCOST_H
#define SPTUNE_COSTMODEL_ANALYTICALCOST_H

#include "sptune/Matrix/MatrixStats.h"
#include "sptune/Schedule/Schedule.h"

#include <cstdint>

namespace sptune {

/// Estimated cost of `s` (lower is faster) on a matrix with `stats`, for a
/// free dense loop of `free` iterations (0 = unknown). Positive and finite.
double analyticalCost(const Schedule &s, const MatrixStats &stats,
                      int64_t free);

} // namespace sptune

#endif // SPTUNE_COSTMODEL_ANALYTICALCOST_H
