//===- Lower.cpp - sptune-lower -------------------------------------------===//
//
// Lowers a module with the pipeline its schedules' target registered
// (TargetRegistry::addLowering): the passes need not know any target.
//
//===----------------------------------------------------------------------===//

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Target/Target.h"
#include "sptune/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_LOWER
#include "sptune/Transforms/Passes.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;

namespace {
struct LowerPass : public mlir::sptune::impl::LowerBase<LowerPass> {
  using LowerBase::LowerBase;

  /// The dialects of every registered lowering: a nested pipeline's
  /// dialects must be loaded before the pass runs.
  void getDependentDialects(DialectRegistry &registry) const override {
    for (const ::sptune::Target *t : ::sptune::TargetRegistry::all()) {
      OpPassManager pm(ModuleOp::getOperationName());
      if (llvm::Error e =
              ::sptune::TargetRegistry::buildLowering(t->kind(), pm))
        llvm::consumeError(std::move(e));
      else
        pm.getDependentDialects(registry);
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<::sptune::TargetKind> kind;
    Operation *first = nullptr;
    WalkResult walk = module->walk([&](Operation *op) {
      auto attr = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      if (!attr)
        return WalkResult::advance();
      ::sptune::TargetKind t = attr.getSchedule().target;
      if (kind && *kind != t) {
        InFlightDiagnostic d = op->emitError("sptune-lower: a schedule for '")
                               << ::sptune::toString(t)
                               << "' in a module whose schedules are for '"
                               << ::sptune::toString(*kind)
                               << "' (lower each target's kernels in a "
                                  "module of their own)";
        d.attachNote(first->getLoc())
            << "a schedule for '" << ::sptune::toString(*kind) << "'";
        return WalkResult::interrupt();
      }
      kind = t;
      first = first ? first : op;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    if (!target.empty()) {
      llvm::Expected<const ::sptune::Target &> named =
          ::sptune::TargetRegistry::get(target);
      if (!named) {
        module->emitError("sptune-lower: ")
            << llvm::toString(named.takeError());
        return signalPassFailure();
      }
      if (kind && *kind != named->kind()) {
        module->emitError("sptune-lower: target '")
            << target << "' but the module's schedules are for '"
            << ::sptune::toString(*kind) << "'";
        return signalPassFailure();
      }
      kind = named->kind();
    }
    if (!kind) {
      module->emitError("sptune-lower: no #sptune.schedule in the module; "
                        "name the target (sptune-lower{target=cpu})");
      return signalPassFailure();
    }

    OpPassManager pm(ModuleOp::getOperationName());
    if (llvm::Error e = ::sptune::TargetRegistry::buildLowering(*kind, pm)) {
      module->emitError("sptune-lower: ") << llvm::toString(std::move(e));
      return signalPassFailure();
    }
    if (failed(runPipeline(pm, module)))
      signalPassFailure();
  }
};
} // namespace
