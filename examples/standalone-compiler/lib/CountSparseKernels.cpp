//===- CountSparseKernels.cpp - standalone-count-sparse-kernels -----------===//
//
// Counts the operations that carry sptune's #sptune.kernel attribute, by
// kind, and those that already carry a #sptune.schedule; the counts go on the
// module as `standalone.sparse_kernels`.
//
//===----------------------------------------------------------------------===//

#include "standalone/Passes.h"

#include "sptune/IR/SptuneAttrs.h"
#include "sptune/IR/SptuneDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace standalone {
#define GEN_PASS_DEF_COUNTSPARSEKERNELS
#include "standalone/Passes.h.inc"
} // namespace standalone

using namespace mlir;

namespace {
struct CountSparseKernels
    : standalone::impl::CountSparseKernelsBase<CountSparseKernels> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<int64_t> perKind;
    int64_t kernels = 0, scheduled = 0;
    module.walk([&](Operation *op) {
      auto kernel = op->getAttrOfType<mlir::sptune::KernelAttr>(
          mlir::sptune::SptuneDialect::kKernelAttrName);
      if (!kernel)
        return;
      ++kernels;
      llvm::StringRef kind = mlir::sptune::stringifyKernelKind(kernel.getKind());
      ++perKind[kind];
      auto schedule = op->getAttrOfType<mlir::sptune::ScheduleAttr>(
          mlir::sptune::SptuneDialect::kScheduleAttrName);
      if (schedule)
        ++scheduled;
      if (remarks) {
        InFlightDiagnostic diag = op->emitRemark()
                                  << "standalone: " << kind << " kernel, ";
        if (schedule)
          diag << "scheduled as " << schedule.getSchedule().str();
        else
          diag << "not scheduled yet";
      }
    });

    Builder b(&getContext());
    SmallVector<NamedAttribute> entries;
    entries.push_back(b.getNamedAttr("kernels", b.getI64IntegerAttr(kernels)));
    entries.push_back(
        b.getNamedAttr("scheduled", b.getI64IntegerAttr(scheduled)));
    for (const auto &entry : perKind)
      entries.push_back(
          b.getNamedAttr(entry.getKey(), b.getI64IntegerAttr(entry.second)));
    module->setAttr("standalone.sparse_kernels", b.getDictionaryAttr(entries));
  }
};
} // namespace
