//===- ApplySchedule.h - Rewrite a kernel into a schedule -------*- C++ -*-===//
//
// Part of sptune. What `sptune-apply-schedule` does to one op, as a function
// a downstream compiler can call: give the sparse operand the scheduled
// storage, map the op into level space, order its loops (`sorted`) and
// strip-mine the free loop. The result is ready for the target's lowering.
//
//===----------------------------------------------------------------------===//

#ifndef SPTUNE_TRANSFORMS_APPLYSCHEDULE_H
#define SPTUNE_TRANSFORMS_APPLYSCHEDULE_H

#include "sptune/Schedule/Schedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
namespace sptune {

struct ScheduleRewriteOptions {
  /// Retype a function argument used only by the kernel instead of inserting
  /// a sparse_tensor.convert.
  bool retypeArgs = false;
};

/// Rewrites `op`, which carries #sptune.kernel, into `schedule`. The
/// schedule must be applicable (whyNotApplicable); otherwise, or when a step
/// fails, emits an error on the op and fails. The rewritten op (or its
/// tiles) and its function carry `schedule` as #sptune.schedule.
LogicalResult applySchedule(linalg::LinalgOp op,
                            const ::sptune::Schedule &schedule,
                            const ScheduleRewriteOptions &options = {});

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TRANSFORMS_APPLYSCHEDULE_H
