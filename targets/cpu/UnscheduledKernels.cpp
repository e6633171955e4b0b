//===- UnscheduledKernels.cpp - Lowering kernels without a schedule -------===//

#include "cpu/UnscheduledKernels.h"

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/AffineMap.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::sptune;

/// Lanes for a kernel with a dense parallel loop: MTTKRP (f64, rank 32) on
/// the 2-core AMD EPYC VM ran 1.04-1.15x the hand CSF kernel with 4, 8 or
/// 16 lanes alike and 0.42x without (bench/mttkrp.py); 8 f64 lanes are one
/// AVX-512 register or two AVX2 ones.
static constexpr unsigned kRuleVectorLength = 8;

/// Whether the graph of `edges` (loop -> loops that must come after it)
/// has a cycle (Kahn's algorithm).
static bool hasCycle(ArrayRef<SmallVector<unsigned>> edges) {
  SmallVector<unsigned> inDegree(edges.size(), 0);
  for (const SmallVector<unsigned> &next : edges)
    for (unsigned to : next)
      ++inDegree[to];
  SmallVector<unsigned> ready;
  for (unsigned loop = 0; loop < edges.size(); ++loop)
    if (inDegree[loop] == 0)
      ready.push_back(loop);
  size_t sorted = 0;
  while (!ready.empty()) {
    unsigned loop = ready.pop_back_val();
    ++sorted;
    for (unsigned to : edges[loop])
      if (--inDegree[to] == 0)
        ready.push_back(to);
  }
  return sorted != edges.size();
}

UnscheduledKernelRule mlir::sptune::unscheduledKernelRule(linalg::LinalgOp op) {
  UnscheduledKernelRule rule;
  auto refuse = [&](std::string why) {
    rule.parallel = false;
    rule.vectorLength = 0;
    rule.whyNotParallel = std::move(why);
    return rule;
  };
  if (op.getNumDpsInits() != 1)
    return refuse("it has " + std::to_string(op.getNumDpsInits()) +
                  " outputs, not one");
  OpOperand *out = op.getDpsInitOperand(0);
  if (sparse_tensor::getSparseTensorEncoding(out->get().getType()))
    return refuse("its output is sparse (upstream inserts into it in order)");
  unsigned numLoops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Upstream's pre-sparsification rewrite (FuseSparseMultiplyOverAdd) fuses
  // a dense sum of products computed by a linalg op into a kernel with only
  // parallel loops and two inputs (a sampled product), and the fused kernel
  // sorts its loops anew.
  bool fusable = op.getNumDpsInputs() == 2 &&
                 llvm::all_of(iterators, [](utils::IteratorType t) {
                   return t == utils::IteratorType::parallel;
                 });
  SmallVector<SmallVector<unsigned>> after(numLoops);
  SmallVector<bool> hasPredecessor(numLoops, false);
  SmallVector<bool> indexesSparse(numLoops, false);
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation())
      return refuse("an indexing map is not a projected permutation");
    auto enc = sparse_tensor::getSparseTensorEncoding(operand.get().getType());
    if (!enc) {
      if (fusable && op.isDpsInput(&operand) &&
          isa_and_nonnull<linalg::LinalgOp>(operand.get().getDefiningOp()))
        return refuse("a dense input is computed by a linalg op, which "
                      "upstream may fuse into this kernel");
      continue;
    }
    if (enc.isSlice() || !enc.isPermutation())
      return refuse("a sparse operand is a slice or stored in blocks");
    // Level l holds dimension dimToLvl^-1(l), indexed by loop map(that).
    AffineMap dimToLvl = enc.getDimToLvl();
    std::optional<unsigned> previous;
    for (unsigned l = 0, rank = enc.getLvlRank(); l < rank; ++l) {
      unsigned dim = l;
      if (dimToLvl && !dimToLvl.isIdentity())
        dim = cast<AffineDimExpr>(dimToLvl.getResult(l)).getPosition();
      unsigned loop = map.getDimPosition(dim);
      indexesSparse[loop] = true;
      if (previous) {
        after[*previous].push_back(loop);
        hasPredecessor[loop] = true;
      }
      previous = loop;
    }
  }
  // Level orders that conflict: upstream drops one operand's order and
  // converts that operand instead, so any loop may come first.
  if (hasCycle(after))
    return refuse("the sparse operands' level orders conflict (upstream "
                  "reorders one operand, and any loop may come first)");
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
  // Vectors where a parallel loop indexes no sparse operand and is the
  // innermost dimension of every dense operand it indexes (MTTKRP's and
  // batched SpMM's columns of the factors): upstream's loop sort, which
  // follows dense operands' dimensions where it can, puts such a loop
  // innermost in those kernels. Not in every kernel (a parallel loop may be
  // sorted before an unconstrained sparse reduction); then the vectorizer
  // takes the innermost loop it gets, a reduction's gathers, which is
  // slower but not wrong.
  for (unsigned loop = 0; loop < numLoops; ++loop) {
    if (indexesSparse[loop] || iterators[loop] != utils::IteratorType::parallel)
      continue;
    bool innermostEverywhere = true;
    for (OpOperand &operand : op->getOpOperands()) {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (map.isFunctionOfDim(loop) &&
          map.getDimPosition(map.getNumResults() - 1) != loop)
        innermostEverywhere = false;
    }
    if (innermostEverywhere) {
      rule.vectorLength = kRuleVectorLength;
      break;
    }
  }
  return rule;
}
