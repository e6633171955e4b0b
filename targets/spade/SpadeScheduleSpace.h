//===- SpadeScheduleSpace.h - The SPADE target's schedule space -*- C++ -*-===//
//
// Part of sptune. The SPADE schedules the collector and the autotuner choose
// from: row-panel height x column-tile width (with or without a barrier
// between column-tile phases) x which streams bypass the caches x row
// reordering, all PEs used, no strips of the free dimension. 252
// configurations for a large operand (COGNATE's SPADE space had 256); panel
// heights and tile widths that cannot differ for the given shape are pruned.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TARGETS_SPADE_SPADESCHEDULESPACE_H
#define SPTUNE_TARGETS_SPADE_SPADESCHEDULESPACE_H

#include "sptune/Target/ScheduleSpace.h"

namespace sptune {

class SpadeScheduleSpace : public ScheduleSpace {
public:
  TargetKind target() const override { return TargetKind::SPADE; }

  /// Order: panel height, column tile width, barrier, bypass, reordering
  /// (outermost first). SpMV has no SPADE schedules.
  void
  enumerate(const ProblemShape &shape,
            const std::function<bool(const Schedule &)> &fn) const override;

  /// Candidate values of the knobs, before pruning by shape.
  static const std::vector<int64_t> &panelHeights();
  /// 1 stands for "no column tiling".
  static const std::vector<int64_t> &tileWidths();
};

/// The configuration SPADE runs when nobody tunes it: row panels of 256
/// rows, no column tiling, no barrier, no bypassing, no reordering, all PEs.
Schedule defaultSpadeSchedule(KernelType kernel);

} // namespace sptune

#endif // SPTUNE_TARGETS_SPADE_SPADESCHEDULESPACE_H
