//===- UnscheduledKernels.cpp - Lowering kernels without a schedule -------===//

#include "cpu/UnscheduledKernels.h"

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/AffineMap.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::sptune;

/// Lanes for a kernel with a dense parallel loop: MTTKRP (f64, rank 32) on
/// the 2-core AMD EPYC VM ran 1.04-1.15x the hand CSF kernel with 4, 8 or
/// 16 lanes alike and 0.42x without (bench/mttkrp.py); 8 is one AVX-512 or
/// two AVX2 registers of f32.
static constexpr unsigned kRuleVectorLength = 8;

UnscheduledKernelRule mlir::sptune::unscheduledKernelRule(linalg::LinalgOp op) {
  UnscheduledKernelRule rule;
  auto refuse = [&](std::string why) {
    rule.parallel = false;
    rule.vectorLength = 0;
    rule.whyNotParallel = std::move(why);
    return rule;
  };
  if (op.getNumDpsInits() != 1)
    return refuse("it has several outputs");
  OpOperand *out = op.getDpsInitOperand(0);
  if (sparse_tensor::getSparseTensorEncoding(out->get().getType()))
    return refuse("its output is sparse (upstream inserts into it in order)");
  unsigned numLoops = op.getNumLoops();
  SmallVector<bool> hasPredecessor(numLoops, false);
  SmallVector<bool> indexesSparse(numLoops, false);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation())
      return refuse("an indexing map is not a projected permutation");
    auto enc = sparse_tensor::getSparseTensorEncoding(operand.get().getType());
    if (!enc)
      continue;
    if (enc.isSlice() || !enc.isPermutation())
      return refuse("a sparse operand is a slice or stored in blocks");
    // Level l holds dimension dimToLvl^-1(l), indexed by loop map(that).
    AffineMap dimToLvl = enc.getDimToLvl();
    unsigned rank = enc.getLvlRank();
    std::optional<unsigned> previous;
    for (unsigned l = 0; l < rank; ++l) {
      unsigned dim = l;
      if (dimToLvl && !dimToLvl.isIdentity())
        dim = cast<AffineDimExpr>(dimToLvl.getResult(l)).getPosition();
      unsigned loop = map.getDimPosition(dim);
      indexesSparse[loop] = true;
      if (previous && *previous != loop)
        hasPredecessor[loop] = true;
      previous = loop;
    }
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap outMap = op.getMatchingIndexingMap(out);
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (hasPredecessor[loop])
      continue;
    std::string loopName = "loop d" + std::to_string(loop);
    if (iterators[loop] != utils::IteratorType::parallel)
      return refuse(loopName + ", which may be put outermost, is a reduction "
                               "(its iterations write the same output "
                               "elements)");
    if (!outMap.isFunctionOfDim(loop))
      return refuse(loopName + ", which may be put outermost, does not index "
                               "the output");
  }
  rule.parallel = true;
  for (unsigned loop = 0; loop < numLoops; ++loop)
    if (!indexesSparse[loop] &&
        iterators[loop] == utils::IteratorType::parallel)
      rule.vectorLength = kRuleVectorLength;
  return rule;
}
