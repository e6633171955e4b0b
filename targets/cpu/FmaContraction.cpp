//===- FmaContraction.cpp - Fuse multiply-adds in sparse kernels ----------===//

#include "cpu/FmaContraction.h"
#include "cpu/CpuPasses.h"

#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;

namespace {
void addContract(Operation *op) {
  auto fm = cast<arith::ArithFastMathInterface>(op);
  arith::FastMathFlagsAttr old = fm.getFastMathFlagsAttr();
  arith::FastMathFlags flags =
      (old ? old.getValue() : arith::FastMathFlags::none) |
      arith::FastMathFlags::contract;
  op->setAttr(fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(op->getContext(), flags));
}

/// Whether `v` is a scalar carried from one iteration of a loop to the next
/// (a region argument of a loop other than its induction variable): the
/// running sum of a serial reduction such as SpMV's row dot product.
bool isLoopCarriedScalar(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || isa<VectorType>(v.getType()))
    return false;
  auto loop =
      dyn_cast_or_null<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
  if (!loop)
    return false;
  if (std::optional<SmallVector<Value>> ivs = loop.getLoopInductionVars())
    if (llvm::is_contained(*ivs, v))
      return false;
  return true;
}

} // namespace

int64_t mlir::sptune::contractMultiplyAdds(Operation *root) {
  int64_t pairs = 0;
  root->walk([&](Operation *op) {
    if (!isa<arith::AddFOp, arith::SubFOp>(op))
      return;
    for (Value operand : op->getOperands()) {
      auto mul = operand.getDefiningOp<arith::MulFOp>();
      if (!mul || !mul->hasOneUse() || mul->getBlock() != op->getBlock())
        continue;
      // A scalar running sum: the adds are the loop's critical path, and a
      // fused multiply-add has twice an add's latency on recent x86 cores
      // (4 cycles against 2 on Golden Cove), while the multiplies are off
      // that path. Fused, SpMV's row loop ran 1.2-1.7x slower (wiki-Vote
      // 0.046 -> 0.078 ms, email-Enron 0.37 -> 0.43-0.55 ms). Vector
      // accumulators (SpMM's row of C, several independent chains per
      // entry) gain from fusing: 5-8% on SpMM.
      Value addend = op->getOperand(operand == op->getOperand(0) ? 1 : 0);
      if (isLoopCarriedScalar(addend))
        return;
      addContract(mul);
      addContract(op);
      ++pairs;
      return;
    }
  });
  return pairs;
}

namespace mlir {
namespace sptune {
#define GEN_PASS_DEF_CPUCONTRACTFMA
#include "cpu/CpuPasses.h.inc"
} // namespace sptune
} // namespace mlir

namespace {
struct CpuContractFmaPass
    : public mlir::sptune::impl::CpuContractFmaBase<CpuContractFmaPass> {
  using CpuContractFmaBase::CpuContractFmaBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func->hasAttr(mlir::sptune::SptuneDialect::kScheduleAttrName))
      mlir::sptune::contractMultiplyAdds(func);
  }
};
} // namespace
