//===- EmitSpade.cpp - sptune-emit-spade ----------------------------------===//
//
// The SPADE target's emission: a kernel carrying a SPADE schedule becomes a
// tile program file (the documented text format of spade/ProgramText.h) that
// the simulator executes with the matrix. The program depends on the shape
// only; row reordering is a directive the simulator applies to the matrix.
//
//===----------------------------------------------------------------------===//

#include "spade/SpadePasses.h"
#include "sptune/Target/Target.h"

#include "spade/MachineConfig.h"
#include "spade/ProgramBuilder.h"
#include "spade/ProgramText.h"
#include "spade/SpadeTarget.h"
#include "sptune/Analysis/KernelMatcher.h"
#include "sptune/Analysis/ScheduleMapping.h"
#include "sptune/IR/SptuneDialect.h"
#include "sptune/Support/Error.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_EMITSPADE
#include "spade/SpadePasses.h.inc"
} // namespace sptune
} // namespace mlir

using namespace mlir;
using namespace mlir::sptune;
namespace st = ::sptune;

namespace {
struct EmitSpadePass
    : public mlir::sptune::impl::EmitSpadeBase<EmitSpadePass> {
  using EmitSpadeBase::EmitSpadeBase;

  void runOnOperation() override {
    bool ok = true;
    std::map<std::string, int> counters;
    getOperation()->walk([&](linalg::LinalgOp op) {
      auto schedule = dyn_cast_or_null<ScheduleAttr>(
          op->getAttr(SptuneDialect::kScheduleAttrName));
      if (!schedule ||
          schedule.getSchedule().target != st::TargetKind::SPADE)
        return;
      ok &= succeeded(emit(op, schedule.getSchedule(), counters));
    });
    if (!ok)
      signalPassFailure();
  }

  LogicalResult emit(linalg::LinalgOp op, const st::Schedule &schedule,
                     std::map<std::string, int> &counters) {
    auto kernel = dyn_cast_or_null<KernelAttr>(
        op->getAttr(SptuneDialect::kKernelAttrName));
    if (!kernel)
      return op->emitError("sptune-emit-spade: op has a SPADE schedule but no "
                           "#sptune.kernel; run sptune-extract-kernels first");
    st::KernelType type = kernel.getKind();
    if (type != schedule.kernel)
      return op->emitError("sptune-emit-spade: schedule is for '")
             << st::toString(schedule.kernel) << "' but the op is a '"
             << stringifyKernelKind(kernel.getKind()) << "' kernel";
    if (isSparseOperandTransposed(kernel))
      return op->emitError("sptune-emit-spade: the sparse operand must be "
                           "the left operand, stored as rows x columns");
    int64_t rows = kernel.getLoopSize(LoopRole::I);
    const st::KernelTypeInfo &info = st::kernelTypeInfo(type);
    int64_t cols = kernel.getLoopSize(info.col);
    int64_t free = info.free ? kernel.getLoopSize(*info.free) : 1;
    if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols) ||
        ShapedType::isDynamic(free))
      return op->emitError("sptune-emit-spade: SPADE programs need static "
                           "shapes; the kernel has dynamic sizes");
    std::string elementType;
    llvm::raw_string_ostream(elementType) << kernel.getElementType();
    if (std::string why = st::whyNotSpadeElementType(elementType);
        !why.empty())
      return op->emitError("sptune-emit-spade: ") << why;
    // The program multiplies the operands only: a fused scale would be lost.
    if (llvm::Expected<st::KernelDescriptor> d = describeKernel(op); !d)
      llvm::consumeError(d.takeError());
    else if (d->scaled)
      return op->emitError("sptune-emit-spade: ") << st::whyNotSpadeScaledBody();
    st::KernelSpec spec;
    spec.kernel = type;
    spec.free = free;
    spec.elementBits = kernel.getElementType().getIntOrFloatBitWidth();
    int pes = machinePes > 0 ? static_cast<int>(machinePes)
                             : st::SpadeMachineConfig().pes;
    std::string error;
    std::optional<st::SpadeProgram> program = st::takeValue(
        st::buildSpadeProgram(rows, cols, spec, schedule, pes), error);
    if (!program)
      return op->emitError("sptune-emit-spade: ") << error;

    auto func = op->getParentOfType<func::FuncOp>();
    std::string stem = func ? func.getSymName().str() : std::string("kernel");
    llvm::SmallString<256> path(outputDir);
    llvm::sys::path::append(path, stem + "." +
                                      std::to_string(counters[stem]++) +
                                      ".spade");
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return op->emitError("sptune-emit-spade: cannot create '")
             << outputDir << "': " << ec.message();
    if (st::takeErrorMessage(
            st::writeSpadeProgramFile(std::string(path), *program), error))
      return op->emitError("sptune-emit-spade: ") << error;
    op->setAttr("sptune.spade_program",
                StringAttr::get(op->getContext(), path.str()));
    return success();
  }
};
} // namespace

void mlir::sptune::registerSpadeTargetPasses() {
  registerSptuneSpadePasses();
  // Its kernels are not lowered: their programs are emitted for the
  // simulator.
  ::sptune::TargetRegistry::addLowering(
      ::sptune::TargetKind::SPADE,
      [](OpPassManager &pm) { pm.addPass(createEmitSpade()); });
}
