//===- SpadeKnobs.h - The SPADE target's own part of a schedule -*- C++ -*-===//
//
// Part of sptune. Processing elements used, a barrier between column
// phases, cache bypassing per stream and row reordering: the knob block of
// `spade` schedules, printed as `pes = 0, barrier = false, bypass = [sparse],
// reorder = none`. The row panel height and the column tile width are the
// shared part's splits (a split of 1 means "not tiled": one panel of all
// rows, or the whole column range); SPADE tiles the matrix itself, so the
// shared part's storage levels, loop order and widths play no part.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADEKNOBS_H
#define SPTUNE_TARGETS_SPADE_SPADEKNOBS_H

#include "sptune/Schedule/Schedule.h"

namespace sptune {

/// SPADE row reordering applied to the sparse matrix before tiling.
enum class RowReorder : uint8_t { None, ByLength, BySimilarity };

/// "none", "length", "similarity".
const char *toString(RowReorder);

struct SpadeKnobs : KnobValuesOf<SpadeKnobs> {
  static char ID;
  int pes = 0; ///< processing elements used; 0 = all of the machine
  bool barrier = false;
  bool bypassSparse = false;
  bool bypassDense = false;
  bool bypassOutput = false;
  RowReorder reorder = RowReorder::None;
  bool operator==(const SpadeKnobs &) const;
};

/// The SPADE knobs of `s` (the defaults when it sets none).
inline const SpadeKnobs &spadeKnobs(const Schedule &s) {
  return s.knobs<SpadeKnobs>();
}
inline SpadeKnobs &spadeKnobs(Schedule &s) { return s.knobs<SpadeKnobs>(); }

/// How the values layer prints, parses, checks and canonicalizes them.
const TargetKnobs &spadeTargetKnobs();

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADEKNOBS_H
