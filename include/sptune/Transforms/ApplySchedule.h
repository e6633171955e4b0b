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

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/Schedule/Schedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Support/LLVM.h"

namespace sptune {
class Target;
} // namespace sptune

namespace mlir {
namespace sptune {

struct ScheduleRewriteOptions {
  /// Retype a function argument used only by the kernel instead of inserting
  /// a sparse_tensor.convert.
  bool retypeArgs = false;
};

/// Why `target` takes no schedule for `op`, the kernel `kernel`, or an empty
/// string: its element type or its body is one the target does not tune
/// (Target::whyUnsupportedElementType, Target::whyUnsupportedBody), or it is
/// an SpGEMM, MTTKRP or batched SpMM and the target has no kernel for it
/// (Target::hasOwnKernel). The
/// tuner leaves such a kernel unscheduled (whyLeftUnscheduled); a
/// hand-written schedule for it is refused by applySchedule.
std::string whyTargetRefusesKernel(linalg::LinalgOp op, KernelAttr kernel,
                                   const ::sptune::Target &target);

/// Rewrites `op`, which carries #sptune.kernel, into `schedule`. The
/// schedule must be applicable (whyNotApplicable) and its target must take
/// the kernel (whyTargetRefusesKernel); otherwise, or when a step fails,
/// emits an error on the op and fails. The rewritten op (or its
/// tiles) and its function carry `schedule` as #sptune.schedule.
LogicalResult applySchedule(linalg::LinalgOp op,
                            const ::sptune::Schedule &schedule,
                            const ScheduleRewriteOptions &options = {});

} // namespace sptune
} // namespace mlir

#endif // SPTUNE_TRANSFORMS_APPLYSCHEDULE_H
