//===- KnobNeighbourhood.h - Schedules around a seed schedule ---*- C++ -*-===//
//
// Part of sptune. A seed schedule's storage and loop order with other knob
// settings (parallelization, vectorization, OpenMP chunking, dense layouts,
// index widths, ... as the target's KnobEncoding draws them):
//
//  - `sampledKnobNeighbours`: knob settings drawn uniformly, the candidates
//    the tuner adds around its heuristic so that the model ranks the
//    heuristic's structure with good knobs (a uniform sample of a space of
//    millions rarely holds it);
//  - `nearestKnobNeighbours`: the settings that differ from the seed's in
//    the fewest knobs, what a collection measures so that the training data
//    holds the heuristic's neighbourhood and not only the model's
//    favourites (the SDDMM sampling gap of issue 12: the parallel, B^T,
//    16-lane SDDMM was never measured on matrices where the model learnt to
//    run it sequentially).
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TUNE_KNOBNEIGHBOURHOOD_H
#define SPTUNE_TUNE_KNOBNEIGHBOURHOOD_H

#include "sptune/Schedule/Schedule.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sptune {

class Target;

/// `count` canonical schedules with `seed`'s storage and loop order (as the
/// target canonicalizes them) and knob
/// settings drawn by the target's knob encoding, half of them (not on a target without storage levels)
/// with 32-bit positions and coordinates. Deterministic for `rngSeed`; may
/// hold duplicates and schedules the target rejects.
std::vector<Schedule> sampledKnobNeighbours(const Target &target,
                                            const Schedule &seed, size_t count,
                                            uint64_t rngSeed);

/// Number of knobs in which `a` and `b` differ: the fields of their printed
/// forms ("parallel = outer", "chunk = 256", "layout = [b : k]",
/// "widths = [32, 32]", ...) whose values differ, a field printed for one
/// only counting as differing. Target-neutral: every knob of every target
/// is a field of `Schedule::str()`.
unsigned knobDistance(const Schedule &a, const Schedule &b);

/// Up to `count` distinct canonical schedules around `seed`, legal for the
/// target and for a rows x cols matrix with nnz entries, in increasing
/// knobDistance from `seed` (ties in a seeded random order): `seed` itself
/// first when it is legal, then its neighbours one knob away, then two, ...
/// Fewer than `count` when the target has fewer settings within reach (a
/// few hundred on the CPU; a dozen on NVVM). Deterministic for `rngSeed`
/// with a given C++ standard library (the tie order uses std::shuffle, as
/// the collector's sampling uses std::hash).
std::vector<Schedule> nearestKnobNeighbours(const Target &target,
                                            const Schedule &seed, size_t count,
                                            int64_t rows, int64_t cols,
                                            int64_t nnz, uint64_t rngSeed);

} // namespace sptune

#endif // SPTUNE_TUNE_KNOBNEIGHBOURHOOD_H
