//===- FmaContraction.cpp - Fuse multiply-adds in sparse kernels ----------===//

#include "cpu/FmaContraction.h"
#include "cpu/CpuPasses.h"

#include "sptune/IR/SptuneDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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
