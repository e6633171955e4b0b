//===- DefaultSchedule.cpp - sptune-default-schedule ----------------------===//
//
// Attaches the heuristic schedule (sptune/Schedule/DefaultSchedule.h) to each
// recognized kernel that has no schedule yet.
//
//===----------------------------------------------------------------------===//

#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Target/Target.h"
#include "sptune/Transforms/Autotune.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_DEFAULTSCHEDULE
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {
struct DefaultSchedulePass
    : public mlir::sptune::impl::DefaultScheduleBase<DefaultSchedulePass> {
  using DefaultScheduleBase::DefaultScheduleBase;

  void runOnOperation() override {
    llvm::Expected<const ::sptune::Target &> targetInfo =
        ::sptune::TargetRegistry::get(target);
    if (!targetInfo) {
      getOperation()->emitError("sptune-default-schedule: ")
          << llvm::toString(targetInfo.takeError());
      return signalPassFailure();
    }
    getOperation()->walk([&](linalg::LinalgOp op) {
      auto kernel = dyn_cast_or_null<KernelAttr>(
          op->getAttr(SptuneDialect::kKernelAttrName));
      if (!kernel || op->hasAttr(SptuneDialect::kScheduleAttrName))
        return;
      // An element type or a body the target does not tune: left to the
      // sparsifier as written.
      if (std::string remark = whyLeftUnscheduled(op, kernel, *targetInfo);
          !remark.empty()) {
        op->emitRemark("sptune-default-schedule: ") << remark;
        return;
      }
      ::sptune::KernelType type = kernel.getKind();
      int64_t free = 0;
      if (std::optional<LoopRole> role = ::sptune::Schedule::freeRole(type)) {
        int64_t size = kernel.getLoopSize(*role);
        free = ShapedType::isDynamic(size) ? 0 : size;
      }
      llvm::Expected<::sptune::Schedule> schedule =
          untunedSchedule(kernel, *targetInfo, free);
      if (!schedule) {
        op->emitRemark("sptune-default-schedule: left unscheduled: neither "
                       "the heuristic nor the reference schedule fits: ")
            << llvm::toString(schedule.takeError());
        return;
      }
      op->setAttr(SptuneDialect::kScheduleAttrName,
                  ScheduleAttr::get(op->getContext(), *schedule));
    });
  }
};
} // namespace
